package goservice

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cacheName is a go cache entry name for the seed n.
func cacheName(n int, suffix string) string {
	h := strings.Repeat(string("0123456789abcdef"[n%16]), 62) + "0" + string("0123456789abcdef"[n/16%16])
	return filepath.Join(h[:2], h+"-"+suffix)
}

func writeSized(t *testing.T, p string, size int, mtime time.Time) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, make([]byte, size), 0o644))
	require.NoError(t, os.Chtimes(p, mtime, mtime))
}

func TestTrimCache_RemovesWhatTheGoCommandDoesNotWrite(t *testing.T) {
	upper := t.TempDir()
	now := time.Now()
	keep := []string{"README", "trim.txt", cacheName(1, "a"), cacheName(2, "d"), filepath.Join(cacheName(3, "d"), "test2json")}
	for _, k := range keep {
		writeSized(t, filepath.Join(upper, k), 100, now)
	}
	strays := []string{"planted.bin", filepath.Join("evil", "deep", "file"), filepath.Join("00", "notahash-a"), filepath.Join(cacheName(4, "a")[:2], "x")}
	for _, s := range strays {
		writeSized(t, filepath.Join(upper, s), 100, now)
	}
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(upper, "link")))
	locked := filepath.Join(upper, "locked")
	writeSized(t, filepath.Join(locked, "f"), 100, now)
	require.NoError(t, os.Chmod(locked, 0))

	_, err := trimCache(upper, 1<<30)
	require.NoError(t, err)
	for _, k := range keep {
		assert.FileExists(t, filepath.Join(upper, k), "a go cache entry stays")
	}
	for _, s := range append(strays, "link", "evil", "locked") {
		_, err := os.Lstat(filepath.Join(upper, s))
		assert.ErrorIs(t, err, os.ErrNotExist, "%s was written by generated code, not by the go command", s)
	}
}

func TestTrimCache_EvictsTheLeastRecentlyUsedOverQuota(t *testing.T) {
	upper := t.TempDir()
	base := time.Now().Add(-time.Hour)
	for i := range 8 {
		writeSized(t, filepath.Join(upper, cacheName(i, "d")), 1<<20, base.Add(time.Duration(i)*time.Minute))
	}
	kept, err := trimCache(upper, 4<<20)
	require.NoError(t, err)
	assert.LessOrEqual(t, kept, int64(3<<20), "trimmed to three quarters of the quota")
	used, err := diskUsage(upper)
	require.NoError(t, err)
	assert.LessOrEqual(t, used, int64(4<<20))
	assert.NoFileExists(t, filepath.Join(upper, cacheName(0, "d")), "the oldest goes first")
	assert.FileExists(t, filepath.Join(upper, cacheName(7, "d")), "the newest stays")

	again, err := trimCache(upper, 4<<20)
	require.NoError(t, err)
	assert.Equal(t, kept, again, "under the quota nothing more goes")
}

func TestDiskUsage_CountsBlocksAndEntries(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<30))
	require.NoError(t, f.Close())
	for i := range 100 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "empty"+string(rune('a'+i%26))+strings.Repeat("x", i/26)), nil, 0o644))
	}
	used, err := diskUsage(dir)
	require.NoError(t, err)
	assert.Less(t, used, int64(1<<20), "a sparse file counts the blocks it holds, not its length")
	assert.GreaterOrEqual(t, used, int64(101*minEntryBytes), "every entry counts at least minEntryBytes")
}

func TestCheckWorkspace_BoundsWhatGeneratedCodeAdds(t *testing.T) {
	ws := &workspace{dir: t.TempDir()}
	writeSized(t, filepath.Join(ws.dir, "brought"), 3<<20, time.Now()) // the request's own files
	r := &runner{workspaceBytes: 2 << 20}
	require.NoError(t, r.baselineWorkspace(ws))
	require.NoError(t, r.checkWorkspace(ws), "what the request brought does not count")
	writeSized(t, filepath.Join(ws.dir, "pkg", "written"), 1<<20, time.Now())
	require.NoError(t, r.checkWorkspace(ws), "within the quota")
	writeSized(t, filepath.Join(ws.dir, "pkg", "more"), 2<<20, time.Now())
	err := r.checkWorkspace(ws)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "workspace quota exceeded: generated code wrote 3 MiB into it, the quota is 2 MiB")
	require.NoError(t, r.baselineWorkspace(ws))
	assert.Error(t, r.checkWorkspace(ws), "the baseline is taken once, before the first command")
}
