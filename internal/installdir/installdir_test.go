package installdir

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newDirs(t *testing.T, root string) (*Dirs, *bytes.Buffer) {
	t.Helper()
	var logs bytes.Buffer
	d, err := New(root, slog.New(slog.NewTextHandler(&logs, nil)))
	require.NoError(t, err)
	return d, &logs
}

func TestPathIsPrivatePerInstallationAndReused(t *testing.T) {
	d, logs := newDirs(t, t.TempDir())
	one, err := d.Path(1)
	require.NoError(t, err)
	two, err := d.Path(2)
	require.NoError(t, err)
	assert.NotEqual(t, one, two)
	for _, dir := range []string{one, two} {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), dir)
		mi, err := os.Stat(filepath.Join(dir, MarkerName))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), mi.Mode().Perm())
	}
	require.NoError(t, os.WriteFile(filepath.Join(one, "snapshot"), []byte("tree"), 0o600))
	again, err := d.Path(1)
	require.NoError(t, err)
	assert.Equal(t, one, again)
	assert.FileExists(t, filepath.Join(one, "snapshot"), "a directory that passes the check is reused")
	assert.Empty(t, logs.String())
}

// TestRedTeamPlantedInstallationCacheIsRefused: whatever is found at an
// installation's path that this process did not make for it is refused
// and replaced, and nothing planted survives into the directory handed
// out.
func TestRedTeamPlantedInstallationCacheIsRefused(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, d *Dirs, path string)
		why   string
	}{
		{"directory without a marker", func(t *testing.T, _ *Dirs, path string) {
			require.NoError(t, os.Mkdir(path, 0o700))
		}, "no marker file"},
		{"world-readable directory", func(t *testing.T, d *Dirs, path string) {
			made, err := d.Path(7)
			require.NoError(t, err)
			require.Equal(t, path, made)
			require.NoError(t, os.Chmod(path, 0o755))
		}, "has mode 0755"},
		{"another installation's directory", func(t *testing.T, d *Dirs, path string) {
			other, err := d.Path(8)
			require.NoError(t, err)
			require.NoError(t, os.Rename(other, path))
		}, "not written by this process for this installation"},
		{"a marker copied from another process", func(t *testing.T, d *Dirs, path string) {
			earlier, err := New(d.Root(), nil)
			require.NoError(t, err)
			_, err = earlier.Path(7)
			require.NoError(t, err)
		}, "not written by this process for this installation"},
		{"symbolic link to another installation", func(t *testing.T, d *Dirs, path string) {
			other, err := d.Path(9)
			require.NoError(t, err)
			require.NoError(t, os.Symlink(other, path))
		}, "is a symbolic link"},
		{"directory owned by another user", func(t *testing.T, d *Dirs, path string) {
			if os.Getuid() != 0 {
				t.Skip("planting a directory owned by another uid needs root")
			}
			made, err := d.Path(7)
			require.NoError(t, err)
			require.NoError(t, os.Chown(made, 4242, 4242))
		}, "is owned by another user"},
		{"marker that is a symbolic link", func(t *testing.T, d *Dirs, path string) {
			require.NoError(t, os.Mkdir(path, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(t.TempDir(), "m"), []byte(d.markerText(7)), 0o600))
			require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "m"), filepath.Join(path, MarkerName)))
		}, "not a private regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, logs := newDirs(t, t.TempDir())
			path := filepath.Join(d.Root(), "installation-7")
			tt.plant(t, d, path)
			if _, err := os.Lstat(path); err == nil && tt.name != "directory owned by another user" {
				// Leave a planted payload inside, where generated code
				// could pick it up if the directory were reused.
				_ = os.WriteFile(filepath.Join(path, "go.mod"), []byte("module evil\n"), 0o644)
			}
			got, err := d.Path(7)
			require.NoError(t, err)
			assert.Equal(t, path, got)
			assert.Contains(t, logs.String(), "refused")
			assert.Contains(t, logs.String(), tt.why)
			fi, err := os.Lstat(got)
			require.NoError(t, err)
			assert.True(t, fi.IsDir())
			assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
			assert.NoFileExists(t, filepath.Join(got, "go.mod"), "nothing planted survives")
			entries, err := os.ReadDir(got)
			require.NoError(t, err)
			require.Len(t, entries, 1, "only the marker")
			if target := filepath.Join(d.Root(), "installation-9"); tt.name == "symbolic link to another installation" {
				assert.FileExists(t, filepath.Join(target, MarkerName), "removing the link leaves its target alone")
			}
		})
	}
}

func TestRootOwnedBySomeoneElseUsesAPrivateSubdirectory(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to give the root directory away")
	}
	root := t.TempDir()
	require.NoError(t, os.Chown(root, 4242, 4242))
	require.NoError(t, os.Chmod(root, 0o777))
	d, _ := newDirs(t, root)
	assert.Equal(t, filepath.Join(root, "uid-0"), d.Root())
	fi, err := os.Stat(d.Root())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())

	// A stranger who made the private directory first is refused.
	root2 := t.TempDir()
	require.NoError(t, os.Chown(root2, 4242, 4242))
	require.NoError(t, os.Mkdir(filepath.Join(root2, "uid-0"), 0o777))
	require.NoError(t, os.Chown(filepath.Join(root2, "uid-0"), 4242, 4242))
	_, err = New(root2, nil)
	require.ErrorContains(t, err, "owned by another user")
}
