//go:build unix

package goservice

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/testkit"
)

// TestReadFileAfterSandboxedStep swaps the workspace's entries as a
// sandboxed test could and checks what the host then reads: files under
// mirror's links come from the repository, anything planted that is not a
// regular file reads as absent.
func TestReadFileAfterSandboxedStep(t *testing.T) {
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":      "module example.com/m\n",
		"lib/lib.go":  "package lib\n",
		"app/app.go":  "package app\n",
		"app/keep.go": "package app // kept\n",
	})
	host := t.TempDir()
	testkit.WriteTree(t, host, map[string]string{"lib/lib.go": "package secret\n", "secret": "host secret\n"})
	ws, err := prepareWorkspace(domain.Request{Repository: domain.Repository{Path: repo},
		Artifacts: []domain.Artifact{{Path: "app/app.go", Content: "package app // new\n"}}})
	require.NoError(t, err)
	t.Cleanup(ws.Remove)
	require.True(t, ws.links["lib"], "lib is linked into the repository")

	// What the sandboxed test does to the workspace.
	plant := func(rel string, fn func(p string) error) {
		p := filepath.Join(ws.dir, filepath.FromSlash(rel))
		require.NoError(t, os.RemoveAll(p))
		require.NoError(t, fn(p))
	}
	plant("lib", func(p string) error { return os.Symlink(filepath.Join(host, "lib"), p) })
	plant("app/keep.go", func(p string) error { return os.Symlink(filepath.Join(host, "secret"), p) })
	plant("go.mod", func(p string) error { return unix.Mkfifo(p, 0o644) })

	tests := []struct {
		rel, want string // want "" means unreadable
	}{
		{"lib/lib.go", "package lib\n"},
		{"app/app.go", "package app // new\n"},
		{"app/keep.go", ""},
		{"go.mod", ""},
		{"../secret", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			data, err := ws.readFile(tt.rel)
			if tt.want == "" {
				assert.Error(t, err)
				assert.False(t, ws.isFile(tt.rel))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(data))
			assert.True(t, ws.isFile(tt.rel))
		})
	}
	assert.Empty(t, ws.modulePath(), "a FIFO for go.mod reads as no module, without blocking")
	assert.Empty(t, ws.visiblePath("app/keep.go"))
	assert.Equal(t, "lib/lib.go", ws.visiblePath("lib/lib.go"))
}
