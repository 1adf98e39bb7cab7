package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// isolation probes once per test binary run; tests that need the sandbox
// fail (never skip) when it is unavailable, since CI hosts provide it.
func requireIsolation(t *testing.T) {
	t.Helper()
	iso := Probe(context.Background())
	require.True(t, iso.Available(), "sandbox unavailable: %s", iso.Reason)
}

func runSh(t *testing.T, p Policy, script string) (string, int) {
	t.Helper()
	if p.Env == nil {
		p.Env = MinimalEnv(os.Environ())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, err := Command(ctx, p, []string{"sh", "-c", script})
	require.NoError(t, err)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return out.String(), code
}

func TestProbe_FindsNamespaces(t *testing.T) {
	requireIsolation(t)
}

func TestCommand_Isolation(t *testing.T) {
	requireIsolation(t)
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("token"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "f"), []byte("x"), 0o644))
	scratch := t.TempDir()
	out, code := runSh(t, Policy{ReadOnly: []string{repo}, ReadWrite: []string{scratch}, Masked: []string{filepath.Join(repo, ".git")}, Dir: scratch},
		`echo init=$(tr '\\0' ' ' </proc/1/cmdline); cat `+repo+`/.git/config; echo w > `+repo+`/f || echo ro-ok; echo s > `+scratch+`/s && echo rw-ok; ls /home /root 2>&1 | head -1; umount `+repo+`/.git 2>&1 || echo umount-denied`)
	t.Log(out)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "init=cogworks-sandbox-init", "PID 1 is the sandbox init: no ancestor is visible")
	assert.NotContains(t, out, "token")
	assert.Contains(t, out, "ro-ok")
	assert.Contains(t, out, "rw-ok")
	assert.Contains(t, out, "umount-denied")
	assert.FileExists(t, filepath.Join(scratch, "s"))
}

func TestNonDumpable(t *testing.T) {
	require.NoError(t, NonDumpable())
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 0, v, "no same-uid process can read this process's environ or mem")
}
