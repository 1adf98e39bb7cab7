package scenario

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/testkit"
)

const twinToken = "ghs_plantedTWINtoken0123"

func confinedRunner(t *testing.T, dir string, out io.Writer, network bool) *ExecTwinRunner {
	t.Helper()
	iso := sandbox.Probe(context.Background())
	require.True(t, iso.Available(), "sandbox unavailable: %s", iso.Reason)
	environ := append(os.Environ(), "COGWORKS_GITHUB_TOKEN="+twinToken)
	r := NewExecTwinRunner(dir, out, out).Confine(TwinSandbox{Isolation: iso, Network: network, Environ: environ})
	r.stopGrace = 200 * time.Millisecond
	return r
}

func TestExecTwinRunner_SandboxedTwinSeesNoSecretAndCannotWrite(t *testing.T) {
	requireTools(t, "sh", "sleep")
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("extraheader = "+twinToken), 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := strings.TrimPrefix(ln.Addr().String(), "127.0.0.1:")
	out := &testkit.SyncBuffer{}
	r := confinedRunner(t, dir, out, false)
	script := `env; cat .git/config; cat /proc/*/environ; echo x > pwned || echo WRITE-DENIED;
		(echo > /dev/tcp/127.0.0.1/` + port + `) 2>/dev/null && echo DIALED || echo DIAL-FAILED; echo TWIN-RAN; sleep 30`
	twin := Twin{Name: "spy", Start: []string{"bash", "-c", script}, Ready: fastReady(Readiness{Command: []string{"true"}})}
	ctx := context.Background()
	require.NoError(t, r.Start(ctx, twin))
	require.NoError(t, r.Ready(ctx, twin))
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "TWIN-RAN") }, 5*time.Second, 20*time.Millisecond)
	require.NoError(t, r.Stop(ctx, twin))

	assert.NotContains(t, out.String(), twinToken, "no secret in the twin's environment, /proc or .git")
	assert.Contains(t, out.String(), "WRITE-DENIED", "the repository is read-only")
	assert.Contains(t, out.String(), "DIAL-FAILED", "no network without the opt-in")
	assert.NoFileExists(t, filepath.Join(dir, "pwned"))
	select {
	case <-accepted:
		t.Error("the host listener was reached")
	default:
	}
}

func TestExecTwinRunner_StopKillsDetachedChildren(t *testing.T) {
	requireTools(t, "sh", "setsid", "sleep")
	out := &testkit.SyncBuffer{}
	r := confinedRunner(t, t.TempDir(), out, false)
	tag := "31.4159"
	twin := Twin{Name: "forker", Start: []string{"sh", "-c", "setsid sleep " + tag + " & echo STARTED; sleep 30"}, Ready: fastReady(Readiness{})}
	ctx := context.Background()
	require.NoError(t, r.Start(ctx, twin))
	require.NoError(t, r.Ready(ctx, twin))
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "STARTED") }, 5*time.Second, 20*time.Millisecond)
	require.NotEmpty(t, hostProcesses(t, "sleep "+tag), "the detached child runs while the twin does")
	require.NoError(t, r.Stop(ctx, twin))
	assert.Eventually(t, func() bool { return len(hostProcesses(t, "sleep "+tag)) == 0 }, 2*time.Second, 20*time.Millisecond,
		"Stop killed the setsid grandchild with the twin's sandbox")
}

func TestExecTwinRunner_RefusesWithoutIsolation(t *testing.T) {
	requireTools(t, "true")
	none := sandbox.Isolation{Mode: sandbox.None, Reason: "injected"}
	r := NewExecTwinRunner(t.TempDir(), nil, nil).Confine(TwinSandbox{Isolation: none})
	err := r.Start(context.Background(), Twin{Name: "t", Start: []string{"true"}})
	var unavailable *sandbox.UnavailableError
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, err.Error(), sandbox.UnsafeEnv)

	var warned []string
	r = NewExecTwinRunner(t.TempDir(), nil, nil).Confine(TwinSandbox{Isolation: none, Unsafe: true, Warn: func(m string) { warned = append(warned, m) }})
	twin := Twin{Name: "t", Start: []string{"true"}, Ready: fastReady(Readiness{})}
	require.NoError(t, r.Start(context.Background(), twin))
	require.NoError(t, r.Stop(context.Background(), twin))
	assert.NotEmpty(t, warned, "every unisolated run warns")
}

// hostProcesses lists the processes whose command line contains s.
func hostProcesses(t *testing.T, s string) []string {
	t.Helper()
	var found []string
	dirs, err := filepath.Glob("/proc/[0-9]*")
	require.NoError(t, err)
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})), s) {
			found = append(found, d)
		}
	}
	return found
}
