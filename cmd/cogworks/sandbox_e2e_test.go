//go:build e2e

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// TestRedTeam_BuiltBinaryDomainService attacks through the real binary:
// `cogworks domain-go serve` started with a token in its environment (as
// an operator might start it by hand) runs a generated test that prints
// its parent's and every visible process's environment. The token must
// appear nowhere in the answer, and the service logs its isolation.
func TestRedTeam_BuiltBinaryDomainService(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the Go toolchain")
	}
	bin := buildCogworks(t)
	sockDir, err := os.MkdirTemp("", "cwrt")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	sock := filepath.Join(sockDir, "go.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "domain-go", "serve", "--socket", sock)
	cmd.Env = append(os.Environ(), "COGWORKS_GITHUB_TOKEN="+e2eToken, "COGWORKS_LLM_API_KEY="+e2eToken)
	logs, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	defer logs.Close()
	cmd.Stderr = logs
	logText := func() string { b, _ := os.ReadFile(logs.Name()); return string(b) }
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })

	c, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	require.Eventually(t, func() bool { _, err := c.Handshake(ctx); return err == nil }, 20*time.Second, 50*time.Millisecond, logText())

	repo := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/rt\n\ngo 1.22\n"), 0o644))
	attack := `package rt

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestSteal(t *testing.T) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(os.Getppid()) + "/environ")
	t.Logf("ATTACK-RAN ppid environ=%q err=%v", b, err)
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		t.Logf("%s=%q", p, b)
	}
	t.Logf("env=%q", os.Environ())
}
`
	res, err := c.Simulate(ctx, domain.Request{Repository: domain.Repository{Path: repo},
		Artifacts: []domain.Artifact{{Path: "rt/steal_test.go", Content: attack}}}, domain.SimulateParams{Packages: []string{"./rt"}})
	require.NoError(t, err)
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.NotContains(t, res.Output, e2eToken, "no secret of the service's environment reached generated code")
	assert.Contains(t, logText(), `"isolation":"namespaces`, "the service logs the isolation in force")
}
