package contextpack

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
)

func TestLocalRepoListFilesSkipsGit(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{
		"go.mod":                  "module x\n",
		"brake/brake.go":          "package brake\n",
		".git/HEAD":               "ref: refs/heads/main\n",
		".git/objects/ab/cdef":    "blob",
		"sub/.git/config":         "nested",
		".cogworks/config.toml":   "",
		".github/workflows/a.yml": "on: push\n",
	})
	files, err := LocalRepo{Dir: dir}.ListFiles(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{".cogworks/config.toml", ".github/workflows/a.yml", "brake/brake.go", "go.mod"}, files)
}

func TestLocalRepoReadFile(t *testing.T) {
	outside := t.TempDir()
	testkit.WriteTree(t, outside, map[string]string{"secret.txt": "s3cret"})
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{"brake/brake.go": "package brake\n"})
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "escape.txt")))
	repo := LocalRepo{Dir: dir}
	ctx := context.Background()

	b, err := repo.ReadFile(ctx, "brake/brake.go")
	require.NoError(t, err)
	assert.Equal(t, "package brake\n", string(b))

	tests := []struct {
		name, path, want string
	}{
		{"missing", "nope.go", "file does not exist"},
		{"absolute", "/etc/passwd", "must be relative"},
		{"dot-dot", "../secret.txt", "read ../secret.txt"},
		{"symlink escape", "escape.txt", "read escape.txt"},
		{"empty", "", "must be relative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := repo.ReadFile(ctx, tt.path)
			require.ErrorContains(t, err, tt.want)
		})
	}
	_, err = repo.ReadFile(ctx, "nope.go")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestLocalRepoHonoursContext(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteTree(t, dir, map[string]string{"a.go": "package a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LocalRepo{Dir: dir}.ListFiles(ctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = LocalRepo{Dir: dir}.ReadFile(ctx, "a.go")
	require.ErrorIs(t, err, context.Canceled)
}

func TestLocalRepoMissingDir(t *testing.T) {
	_, err := LocalRepo{Dir: filepath.Join(t.TempDir(), "absent")}.ListFiles(context.Background())
	require.ErrorContains(t, err, "list files in")
}
