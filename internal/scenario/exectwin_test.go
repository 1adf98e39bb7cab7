package scenario

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func requireTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not available: %v", tool, err)
		}
	}
}

func fastReady(r Readiness) Readiness {
	if r.Timeout == 0 {
		r.Timeout = 2 * time.Second
	}
	r.Interval = 20 * time.Millisecond
	return r
}

func TestExecTwinRunner_Lifecycle(t *testing.T) {
	requireTools(t, "sleep", "true", "touch")
	dir := t.TempDir()
	r := NewExecTwinRunner(dir, nil, nil)
	twin := Twin{
		Name:  "sleeper",
		Start: []string{"sleep", "30"},
		Ready: fastReady(Readiness{Command: []string{"true"}}),
		Reset: []string{"touch", "reset-marker"},
		Stop:  []string{"touch", "stop-marker"},
	}
	ctx := context.Background()
	require.NoError(t, r.Start(ctx, twin))
	p := r.proc("sleeper")
	require.NotNil(t, p)
	require.Error(t, r.Start(ctx, twin), "a running twin cannot be started twice")

	require.NoError(t, r.Ready(ctx, twin))
	require.NoError(t, r.Reset(ctx, twin))
	assert.FileExists(t, filepath.Join(dir, "reset-marker"), "reset ran as argv in the twin directory")

	require.NoError(t, r.Stop(ctx, twin))
	assert.FileExists(t, filepath.Join(dir, "stop-marker"))
	assert.True(t, p.exited(), "the twin process is gone after Stop")
	assert.Nil(t, r.proc("sleeper"))
}

func TestExecTwinRunner_ResetWithoutCommandRestarts(t *testing.T) {
	requireTools(t, "sleep")
	r := NewExecTwinRunner(t.TempDir(), nil, nil)
	twin := Twin{Name: "s", Start: []string{"sleep", "30"}, Ready: fastReady(Readiness{})}
	ctx := context.Background()
	require.NoError(t, r.Start(ctx, twin))
	first := r.proc("s")
	require.NoError(t, r.Reset(ctx, twin))
	second := r.proc("s")
	require.NotNil(t, second)
	assert.True(t, first.exited())
	assert.NotEqual(t, first.cmd.Process.Pid, second.cmd.Process.Pid)
	require.NoError(t, r.Stop(ctx, twin))
}

func TestExecTwinRunner_TCPReadiness(t *testing.T) {
	requireTools(t, "sleep")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	r := NewExecTwinRunner(t.TempDir(), nil, nil)
	twin := Twin{Name: "tcp", Start: []string{"sleep", "30"}, Ready: fastReady(Readiness{TCP: ln.Addr().String()})}
	ctx := context.Background()
	require.NoError(t, r.Start(ctx, twin))
	defer func() { require.NoError(t, r.Stop(ctx, twin)) }()
	require.NoError(t, r.Ready(ctx, twin))
}

func TestExecTwinRunner_ReadinessFailures(t *testing.T) {
	requireTools(t, "sleep", "true", "false")
	ctx := context.Background()

	t.Run("probe never succeeds", func(t *testing.T) {
		r := NewExecTwinRunner(t.TempDir(), nil, nil)
		twin := Twin{Name: "slow", Start: []string{"sleep", "30"}, Ready: fastReady(Readiness{Command: []string{"false"}, Timeout: 200 * time.Millisecond})}
		require.NoError(t, r.Start(ctx, twin))
		err := r.Ready(ctx, twin)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "twin slow not ready after 200ms")
		require.NoError(t, r.Stop(ctx, twin))
	})
	t.Run("process exits first", func(t *testing.T) {
		r := NewExecTwinRunner(t.TempDir(), nil, nil)
		twin := Twin{Name: "quitter", Start: []string{"true"}, Ready: fastReady(Readiness{Command: []string{"false"}})}
		require.NoError(t, r.Start(ctx, twin))
		err := r.Ready(ctx, twin)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "twin quitter exited before becoming ready")
		require.NoError(t, r.Stop(ctx, twin))
	})
	t.Run("not started", func(t *testing.T) {
		r := NewExecTwinRunner(t.TempDir(), nil, nil)
		require.ErrorContains(t, r.Ready(ctx, Twin{Name: "x"}), "twin x readiness: not started")
	})
	t.Run("missing binary", func(t *testing.T) {
		r := NewExecTwinRunner(t.TempDir(), nil, nil)
		err := r.Start(ctx, Twin{Name: "ghost", Start: []string{"./definitely-not-here"}})
		require.ErrorContains(t, err, "start twin ghost")
	})
	t.Run("arguments are not shell-interpreted", func(t *testing.T) {
		requireTools(t, "touch")
		dir := t.TempDir()
		r := NewExecTwinRunner(dir, nil, nil)
		twin := Twin{Name: "argv", Start: []string{"sleep", "30"}, Reset: []string{"touch", "a; touch b"}, Ready: fastReady(Readiness{})}
		require.NoError(t, r.Start(ctx, twin))
		require.NoError(t, r.Reset(ctx, twin))
		require.NoError(t, r.Stop(ctx, twin))
		assert.FileExists(t, filepath.Join(dir, "a; touch b"))
		_, err := os.Stat(filepath.Join(dir, "b"))
		assert.True(t, os.IsNotExist(err))
	})
}
