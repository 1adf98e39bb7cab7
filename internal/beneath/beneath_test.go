//go:build unix

package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// hostile builds a root whose entries are what sandboxed code could leave
// in a workspace, next to a secret outside the root.
func hostile(t *testing.T) string {
	t.Helper()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	require.NoError(t, os.WriteFile(secret, []byte("host secret"), 0o600))
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "pkg", "ok.go"), []byte("package pkg\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "big.go"), make([]byte, 2048), 0o644))
	require.NoError(t, os.Symlink(secret, filepath.Join(root, "link.go")))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.go")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "dirlink")))
	require.NoError(t, os.Symlink("pkg", filepath.Join(root, "inner")))
	require.NoError(t, unix.Mkfifo(filepath.Join(root, "fifo.go"), 0o644))
	return root
}

func TestReadFile(t *testing.T) {
	root := hostile(t)
	tests := []struct {
		name, root, rel string
		want            string
		err             error // nil: any error; checked with errors.Is when set
		ok              bool
	}{
		{name: "regular file", root: root, rel: "pkg/ok.go", want: "package pkg\n", ok: true},
		{name: "unclean but inside", root: root, rel: "pkg/../pkg/ok.go", want: "package pkg\n", ok: true},
		{name: "link to a host file", root: root, rel: "link.go"},
		{name: "link to /dev/zero", root: root, rel: "zero.go"},
		{name: "linked directory to the host", root: root, rel: "dirlink/secret"},
		{name: "link inside the root", root: root, rel: "inner/ok.go"},
		{name: "fifo", root: root, rel: "fifo.go", err: ErrNotRegular},
		{name: "device", root: "/dev", rel: "zero", err: ErrNotRegular},
		{name: "directory", root: root, rel: "pkg", err: ErrNotRegular},
		{name: "oversized", root: root, rel: "big.go", err: ErrTooLarge},
		{name: "escapes", root: root, rel: "../secret", err: ErrEscapes},
		{name: "absolute", root: root, rel: "/etc/passwd", err: ErrEscapes},
		{name: "missing", root: root, rel: "nope.go", err: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, err = ReadFile(tt.root, tt.rel, 1024)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, tt.want, string(data))
				assert.True(t, IsRegular(tt.root, tt.rel))
				return
			}
			require.Error(t, err)
			assert.Nil(t, data)
			assert.NotContains(t, err.Error(), "host secret")
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
			}
			if !errors.Is(err, ErrTooLarge) {
				assert.False(t, IsRegular(tt.root, tt.rel), "IsRegular")
			}
		})
	}
}

// TestWalkFallback runs the openat walk that kernels without openat2 use
// over the same hostile entries.
func TestWalkFallback(t *testing.T) {
	root := hostile(t)
	f, err := openWalk(root, "pkg/ok.go")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, regularWalk(root, "pkg/ok.go"))
	for _, rel := range []string{"link.go", "zero.go", "dirlink/secret", "inner/ok.go"} {
		_, err := openWalk(root, rel)
		assert.Error(t, err, rel)
		assert.Error(t, regularWalk(root, rel), rel)
	}
	f, err = openWalk(root, "fifo.go") // opens without blocking: O_NONBLOCK
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.ErrorIs(t, regularWalk(root, "fifo.go"), ErrNotRegular)
}
