package goservice_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
)

// After the sandboxed go test, the service reads workspace files on the
// host: the files a failing test's log names (visiblePath), the files a
// build error names (syntaxErrors) and go.mod (modulePath). The generated
// test below swaps them for what the host must not follow.

// TestRedTeam_HostFollowsNoPlantedLink: a test links two files of its
// package to host paths, one that exists and one that does not, and fails
// naming each. Before reads went through package beneath, visiblePath's
// os.Stat followed the links, so the diagnostic named "rt/exists.go" for
// the existing host file and only "rt" for the missing one: one bit per
// host file, for any path the model cared to ask about.
func TestRedTeam_HostFollowsNoPlantedLink(t *testing.T) {
	requireRedTeam(t)
	repo := redTeamRepo(t, "")
	secret := filepath.Join(t.TempDir(), "host-only-secret")
	require.NoError(t, os.WriteFile(secret, []byte("package secret // "+plantedToken+"\n"), 0o600))
	// A failing test's log line "name.go:N: msg" is how the host comes
	// to look at name.go: the test prints such lines for its two links.
	src := fmt.Sprintf(`package rt

import (
	"os"
	"testing"
)

func plant(t *testing.T, name, target string) {
	_ = os.Remove(name)
	if err := os.Symlink(target, name); err != nil {
		t.Logf("ATTACK-RAN symlink %%s: %%v", name, err)
	}
	os.Stdout.WriteString("    " + name + ":1: boom\n")
	t.Fail()
}

func TestOracleExists(t *testing.T) {
	os.Stdout.WriteString("ATTACK-RAN\n")
	plant(t, "exists.go", %q)
}

func TestOracleAbsent(t *testing.T) { plant(t, "absent.go", %q) }
`, secret, secret+".missing")
	c := startService(t, goservice.Options{})
	res := simulateAttack(t, c, repo, domain.Artifact{Path: "rt/attack_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	require.NotContains(t, res.Output, "symlink", "the links were planted: %s", res.Output)
	located := map[string]string{}
	for _, d := range res.Diagnostics {
		for _, name := range []string{"TestOracleExists", "TestOracleAbsent"} {
			if strings.HasPrefix(d.Message, name+" failed") {
				located[name] = d.Artifact
			}
		}
	}
	require.Len(t, located, 2, "both tests failed: %+v", res.Diagnostics)
	assert.Equal(t, located["TestOracleAbsent"], located["TestOracleExists"], "a link to an existing host file reads like a missing one")
	assert.Equal(t, "rt", located["TestOracleExists"])
	for _, d := range res.Diagnostics {
		assert.NotContains(t, d.Message+d.Artifact, plantedToken)
	}
}

// TestRedTeam_HostReadsNoPlantedSpecialFile: a test replaces the
// workspace's go.mod, which the service reads after the run (modulePath),
// with a FIFO or a link to /dev/zero. Before, os.ReadFile blocked on the
// FIFO until the request was killed, and read /dev/zero until the service
// ran out of memory (not run against the old code here: it takes the
// machine's memory). Now the request answers promptly.
func TestRedTeam_HostReadsNoPlantedSpecialFile(t *testing.T) {
	requireRedTeam(t)
	c := startService(t, goservice.Options{})
	for _, tt := range []struct{ name, plant string }{
		{"fifo", `if err := syscall.Mkfifo("../go.mod", 0o644); err != nil { t.Logf("ATTACK-FAILED mkfifo: %v", err) }`},
		{"dev zero", `if err := os.Symlink("/dev/zero", "../go.mod"); err != nil { t.Logf("ATTACK-FAILED symlink: %v", err) }`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo := redTeamRepo(t, "")
			src := `package rt

import (
	"os"
	"syscall"
	"testing"
)

var _ = syscall.Mkfifo

func TestPlant(t *testing.T) {
	t.Log("ATTACK-RAN")
	if err := os.Remove("../go.mod"); err != nil {
		t.Logf("ATTACK-FAILED remove: %v", err)
	}
	` + tt.plant + `
	t.Error("fail, so that the host locates the failure")
}
`
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Simulate(ctx, domain.Request{Repository: domain.Repository{Path: repo},
				Artifacts: []domain.Artifact{{Path: "rt/attack_test.go", Content: src}}}, domain.SimulateParams{Packages: []string{"./rt"}, Timeout: "30s"})
			require.NoError(t, err, "the request answers (took %s)", time.Since(start))
			require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
			require.NotContains(t, res.Output, "ATTACK-FAILED", res.Output)
			assert.False(t, res.Passed)
		})
	}
}
