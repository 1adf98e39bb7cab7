package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCommand_BindAtFixedPath: a per-request directory appears at one
// fixed path (writable), and a read-only bind refuses writes; the host
// path itself is not mounted.
func TestCommand_BindAtFixedPath(t *testing.T) {
	requireIsolation(t)
	ws, ro := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "in"), []byte("request-1"), 0o644))
	const fixed, fixedRO = "/cogworks/workspace", "/cogworks/ro"
	out, code := runSh(t, Policy{
		Binds: []Bind{{Source: ws, Target: fixed}, {Source: ro, Target: fixedRO, ReadOnly: true}},
		Dir:   fixed,
	}, `pwd; cat in; echo out > out && echo rw-ok; echo x > `+fixedRO+`/x || echo ro-ok; ls `+ws+` 2>&1 || echo host-path-absent`)
	t.Log(out)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, fixed+"\n")
	assert.Contains(t, out, "request-1")
	assert.Contains(t, out, "rw-ok")
	assert.Contains(t, out, "ro-ok")
	assert.Contains(t, out, "host-path-absent")
	assert.FileExists(t, filepath.Join(ws, "out"), "writes land in the per-request directory")
	assert.NoFileExists(t, filepath.Join(ro, "x"))
}
