package workspace

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
)

func newSim(t *testing.T, files map[string]string) (*githubsim.Server, *github.Client) {
	t.Helper()
	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.AddToken("tok", "cogworks[bot]")
	sim.CreateRepo("acme", "widgets", "main")
	if files != nil {
		sim.SeedFiles("acme/widgets", "main", files)
	}
	c, err := github.New(context.Background(), github.Options{BaseURL: url + "/api/v3/", Token: "tok", CacheSize: -1})
	require.NoError(t, err)
	return sim, c
}

func TestHeadMaterialisesTheDefaultBranchAndReadsItsConfig(t *testing.T) {
	sim, gh := newSim(t, map[string]string{
		".cogworks/config.toml": "[gates]\narchitecture = \"auto-proceed\"\n",
		"pkg/a.go":              "package pkg\n",
		"README.md":             "hello\n",
	})
	repo := github.Repo{Owner: "acme", Name: "widgets"}
	c := &Cache{Root: t.TempDir()}
	ctx := context.Background()

	co, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	sha, _ := sim.BranchSHA("acme/widgets", "main")
	assert.Equal(t, sha, co.SHA)
	assert.Equal(t, "main", co.Branch)
	assert.Equal(t, config.AutoProceed, co.Config.GateMode("architecture"))
	got, err := os.ReadFile(filepath.Join(co.Dir, "pkg", "a.go"))
	require.NoError(t, err)
	assert.Equal(t, "package pkg\n", string(got))
	fromDisk, err := config.Load(co.Dir)
	require.NoError(t, err)
	assert.Equal(t, co.Config, fromDisk, "the tree and the contents API agree")

	before := sim.RequestCount()
	again, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	assert.Equal(t, co.Dir, again.Dir)
	assert.LessOrEqual(t, sim.RequestCount()-before, 4, "a cached commit costs repo, branch and config reads only")

	// A new commit gets its own tree; the old one stays until pruned.
	sim.SeedFiles("acme/widgets", "main", map[string]string{"pkg/b.go": "package pkg // b\n"})
	next, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	assert.NotEqual(t, co.Dir, next.Dir)
	assert.FileExists(t, filepath.Join(next.Dir, "pkg", "b.go"))
}

func TestMissingConfigIsTheDefaultAndPruneKeepsTheNewest(t *testing.T) {
	sim, gh := newSim(t, map[string]string{"a.txt": "1"})
	repo := github.Repo{Owner: "acme", Name: "widgets"}
	c := &Cache{Root: t.TempDir(), Keep: 2}
	ctx := context.Background()
	var dirs []string
	for i := range 3 {
		co, err := c.Head(ctx, gh, repo)
		require.NoError(t, err)
		assert.Equal(t, config.Default(), co.Config)
		dirs = append(dirs, co.Dir)
		sim.SeedFiles("acme/widgets", "main", map[string]string{"a.txt": string(rune('2' + i))})
	}
	assert.NoDirExists(t, dirs[0], "only the newest two trees are kept")
	assert.DirExists(t, dirs[1])
	assert.DirExists(t, dirs[2])
}

func TestBadConfigAndMissingRepoAreErrors(t *testing.T) {
	_, gh := newSim(t, map[string]string{".cogworks/config.toml": "[gates]\nnope = \"x\"\n"})
	c := &Cache{Root: t.TempDir()}
	_, err := c.Head(context.Background(), gh, github.Repo{Owner: "acme", Name: "widgets"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "acme/widgets:.cogworks/config.toml")

	_, err = c.Head(context.Background(), gh, github.Repo{Owner: "acme", Name: "nothing"})
	require.Error(t, err)
	assert.ErrorIs(t, err, github.ErrNotFound)
}

// A repository's snapshot costs the same few requests whatever its size,
// and a file over 1 MB (which the contents API refuses) is part of it.
func TestSnapshotCostsConstantRequestsAndHoldsLargeFiles(t *testing.T) {
	files := map[string]string{"big/data.json": strings.Repeat("x", 1<<20+10)}
	for i := range 200 {
		files[fmt.Sprintf("pkg/f%03d.go", i)] = fmt.Sprintf("package pkg // %d\n", i)
	}
	sim, gh := newSim(t, files)
	c := &Cache{Root: t.TempDir()}
	before := sim.RequestCount()
	co, err := c.Head(context.Background(), gh, github.Repo{Owner: "acme", Name: "widgets"})
	require.NoError(t, err)
	// repo, branch, config, tarball and its download.
	assert.LessOrEqual(t, sim.RequestCount()-before, 5)
	info, err := os.Stat(filepath.Join(co.Dir, "big", "data.json"))
	require.NoError(t, err)
	assert.EqualValues(t, 1<<20+10, info.Size())
	got, err := os.ReadFile(filepath.Join(co.Dir, "pkg", "f199.go"))
	require.NoError(t, err)
	assert.Equal(t, "package pkg // 199\n", string(got))
}

func TestExtractSkipsLinksAndRefusesEscapes(t *testing.T) {
	tarball := func(entries ...*tar.Header) *bytes.Buffer {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, h := range entries {
			require.NoError(t, tw.WriteHeader(h))
			if h.Typeflag == tar.TypeReg {
				_, err := tw.Write(make([]byte, h.Size))
				require.NoError(t, err)
			}
		}
		require.NoError(t, tw.Close())
		require.NoError(t, gz.Close())
		return &buf
	}
	tests := []struct {
		name    string
		entries []*tar.Header
		limit   int64
		wantErr string
		want    []string
	}{
		{name: "files, an executable and a skipped symlink", limit: 100, want: []string{"a.txt", "bin/run"}, entries: []*tar.Header{
			{Name: "o-r-1/a.txt", Typeflag: tar.TypeReg, Size: 3, Mode: 0o644},
			{Name: "o-r-1/bin/run", Typeflag: tar.TypeReg, Size: 1, Mode: 0o755},
			{Name: "o-r-1/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"},
		}},
		{name: "escape", limit: 100, wantErr: "unsafe path", entries: []*tar.Header{
			{Name: "o-r-1/../../x", Typeflag: tar.TypeReg, Size: 1, Mode: 0o644},
		}},
		{name: "too large", limit: 10, wantErr: "more than 10 bytes", entries: []*tar.Header{
			{Name: "o-r-1/a", Typeflag: tar.TypeReg, Size: 8, Mode: 0o644},
			{Name: "o-r-1/b", Typeflag: tar.TypeReg, Size: 8, Mode: 0o644},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := extract(tarball(tt.entries...), dir, tt.limit)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			for _, p := range tt.want {
				assert.FileExists(t, filepath.Join(dir, p))
			}
			assert.NoFileExists(t, filepath.Join(dir, "link"))
			info, err := os.Stat(filepath.Join(dir, "bin", "run"))
			require.NoError(t, err)
			assert.NotZero(t, info.Mode()&0o100, "the executable bit survives")
		})
	}
}
