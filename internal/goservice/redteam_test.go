package goservice_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/pipeline"
)

// The red-team tests run generated tests that attack the host through the
// real domain service. Each asserts the attack ran and achieved nothing.
// They fail (never skip) on a host without isolation: CI provides it.

// plantedToken is the secret every attack looks for.
const plantedToken = "ghs_PLANTEDsecretVALUE0123456789"

// redTeamRepo is a module whose checkout holds a token in .git/config and
// a held-out scenario, as after actions/checkout.
func redTeamRepo(t *testing.T, config string) string {
	t.Helper()
	repo := t.TempDir()
	files := map[string]string{
		"go.mod":                           "module example.com/rt\n\ngo 1.22\n",
		"rt/rt.go":                         "package rt\n\n// Answer is 42.\nfunc Answer() int { return 42 }\n",
		".git/config":                      "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + plantedToken + "\n",
		".cogworks/scenarios/holdout.toml": "id = \"SCN-1\"\n# expected answer: 42\n",
		".cogworks/prompts/codegen.md":     "prompt override\n",
		".cogworks/config.toml":            config,
	}
	for rel, content := range files {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return repo
}

// startService serves the domain service from a process environment
// holding the planted token, as the cogworks process does.
func startService(t *testing.T, opts goservice.Options) *domain.Client {
	t.Helper()
	t.Setenv("COGWORKS_GITHUB_TOKEN", plantedToken)
	t.Setenv("DEPLOY_CREDENTIALS_FOR_TEST", plantedToken)
	t.Setenv("GOPROXY", "https://user:"+plantedToken+"@proxy.golang.org,direct")
	if opts.TestTimeout == 0 {
		opts.TestTimeout = time.Minute
	}
	return newClient(t, goservicetest.Start(t, opts))
}

func simulateAttack(t *testing.T, c *domain.Client, repo string, arts ...domain.Artifact) domain.SimulateResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := c.Simulate(ctx, domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: arts}, domain.SimulateParams{Packages: []string{"./rt"}, Timeout: "30s"})
	require.NoError(t, err)
	return res
}

func requireRedTeam(t *testing.T) {
	t.Helper()
	e2e.RequireToolchain(t)
}

func TestRedTeam_SecretsAndExfiltration(t *testing.T) {
	requireRedTeam(t)
	repo := redTeamRepo(t, "")
	realHome, otherTmp := t.TempDir(), t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	received := make(chan string, 8)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(conn)
			received <- string(b) + "<connected>"
			conn.Close()
		}
	}()
	targets := []string{
		filepath.Join(repo, "pwned"), filepath.Join(repo, "rt", "rt.go"), filepath.Join(repo, ".cogworks", "config.toml"),
		filepath.Join(repo, ".cogworks", "prompts", "codegen.md"), filepath.Join(realHome, "pwned"), filepath.Join(otherTmp, "pwned"),
	}
	quoted := make([]string, len(targets))
	for i, p := range targets {
		quoted[i] = strconv.Quote(p)
	}
	src := render(t, "testdata/redteam/exfil_test.go.tmpl", map[string]string{
		"Repo": strconv.Quote(repo), "Listener": strconv.Quote(ln.Addr().String()), "WriteTargets": strings.Join(quoted, ", "),
	})
	c := startService(t, goservice.Options{})
	res := simulateAttack(t, c, repo, domain.Artifact{Path: "rt/attack_test.go", Content: src})

	require.Contains(t, res.Output, "ATTACK-RAN", "the generated test ran: %s", res.Output)
	assert.NotContains(t, res.Output, plantedToken, "no secret reached generated code (environment, /proc/*/environ, /proc/*/mem, .git/config)")
	assert.NotContains(t, res.Output, "GIT-CONFIG", ".git is masked")
	assert.Contains(t, res.Output, "DIAL-FAILED", "no network")
	assert.NotContains(t, res.Output, "WROTE", "no write outside the scratch succeeded")
	select {
	case got := <-received:
		t.Errorf("the host listener received %q", got)
	case <-time.After(100 * time.Millisecond):
	}
	for _, p := range targets {
		b, err := os.ReadFile(p)
		if err == nil {
			assert.NotEqual(t, "pwned", string(b), "%s was overwritten", p)
		}
	}
	assert.NoFileExists(t, filepath.Join(repo, "pwned"))
}

func TestRedTeam_SetsidSleeperDoesNotOutliveRequest(t *testing.T) {
	requireRedTeam(t)
	repo := redTeamRepo(t, "")
	markerDir := t.TempDir()
	marker := filepath.Join(markerDir, "survived")
	tag := fmt.Sprintf("7.%d", time.Now().UnixNano()%1000000) // a unique sleep argument to find the process by
	src := fmt.Sprintf(`package rt

import (
	"os/exec"
	"syscall"
	"testing"
)

func TestDetach(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep %s; echo survived > %s; echo survived > $HOME/survived")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Log("ATTACK-RAN", cmd.Process.Pid)
}
`, tag, marker)
	c := startService(t, goservice.Options{})
	res := simulateAttack(t, c, repo, domain.Artifact{Path: "rt/detach_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.Empty(t, processesWith(t, "sleep "+tag), "the setsid sleeper was killed with the request")
	time.Sleep(100 * time.Millisecond)
	assert.NoFileExists(t, marker)
}

// processesWith lists the host processes whose command line contains s.
func processesWith(t *testing.T, s string) []string {
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

func TestRedTeam_CgoIncludeOfHostFile(t *testing.T) {
	requireRedTeam(t)
	secretDir := t.TempDir()
	header := filepath.Join(secretDir, "secret.h")
	require.NoError(t, os.WriteFile(header, []byte(plantedToken+"\n"), 0o644))
	cgoFile := domain.Artifact{Path: "rt/leak.go", Content: fmt.Sprintf("package rt\n\n// #include %q\nimport \"C\"\n\n// Leak is never useful.\nfunc Leak() {}\n", header)}
	testFile := domain.Artifact{Path: "rt/leak_test.go", Content: "package rt\n\nimport \"testing\"\n\nfunc TestLeak(t *testing.T) { t.Log(\"ATTACK-RAN\") }\n"}
	c := startService(t, goservice.Options{})

	t.Run("cgo disabled: the file is not compiled", func(t *testing.T) {
		res := simulateAttack(t, c, redTeamRepo(t, ""), cgoFile, testFile)
		assert.NotContains(t, res.Output, plantedToken)
		assert.True(t, res.Passed, "built without the cgo file: %s", res.Output)
	})
	t.Run("cgo opted in: the path is not mounted", func(t *testing.T) {
		res := simulateAttack(t, c, redTeamRepo(t, "[sandbox]\ncgo = true\n"), cgoFile, testFile)
		assert.NotContains(t, res.Output, plantedToken)
		assert.False(t, res.Passed)
		assert.Contains(t, res.Output, "secret.h", "the compiler could not find the header: %s", res.Output)
	})
}

func TestRedTeam_ForkBombIsBounded(t *testing.T) {
	requireRedTeam(t)
	tag := fmt.Sprintf("60.%d", time.Now().UnixNano()%1000000) // a unique sleep argument to find the processes by
	src := `package rt

import (
	"os/exec"
	"testing"
)

func TestBomb(t *testing.T) {
	n := 0
	for ; n < 1500; n++ {
		if err := exec.Command("sleep", "` + tag + `").Start(); err != nil {
			t.Logf("ATTACK-RAN fork limit hit after %d processes: %v", n, err)
			return
		}
	}
	t.Logf("ATTACK-RAN unbounded: %d processes", n)
}
`
	c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{Limits: sandbox.Limits{Processes: 300}}})
	start := time.Now()
	res := simulateAttack(t, c, redTeamRepo(t, ""), domain.Artifact{Path: "rt/bomb_test.go", Content: src})
	require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
	assert.Contains(t, res.Output, "fork limit hit", res.Output)
	assert.NotContains(t, res.Output, "unbounded")
	assert.Less(t, time.Since(start), time.Minute, "the request returned")
	assert.Empty(t, processesWith(t, "sleep "+tag), "the bomb's processes died with the request")
}

func TestRedTeam_OutputFloodIsCapped(t *testing.T) {
	requireRedTeam(t)
	src := `package rt

import (
	"os"
	"strings"
	"testing"
)

func TestFlood(t *testing.T) {
	line := strings.Repeat("x", 1<<20-1) + "\n"
	for range 16 { // 16 MiB: four times the 4 MiB cap below
		os.Stdout.WriteString(line)
	}
}
`
	c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{Limits: sandbox.Limits{OutputBytes: 4 << 20}}})
	res := simulateAttack(t, c, redTeamRepo(t, ""), domain.Artifact{Path: "rt/flood_test.go", Content: src})
	assert.Contains(t, res.Output, "output truncated", "the parent kept a bounded prefix and said so")
	assert.Less(t, len(res.Output), 2<<20)
}

func TestRedTeam_RefusesWithoutIsolation(t *testing.T) {
	requireRedTeam(t)
	src := "package rt\n\nimport \"testing\"\n\nfunc TestRan(t *testing.T) { t.Log(\"GENERATED-CODE-RAN\") }\n"
	none := &sandbox.Isolation{Mode: sandbox.None, Reason: "injected by the test"}
	repo := redTeamRepo(t, "")
	req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{{Path: "rt/ran_test.go", Content: src}}}
	ctx := context.Background()

	c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{Isolation: none}})
	_, err := c.Simulate(ctx, req, domain.SimulateParams{Packages: []string{"./rt"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refusing to execute generated code")
	assert.Contains(t, err.Error(), sandbox.UnsafeEnv+"=1", "the message names the opt-out")
	_, err = c.Validate(ctx, req)
	require.Error(t, err, "go build and go vet refuse too")

	unsafe := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{Isolation: none, UnsafeNoSandbox: true}})
	res, err := unsafe.Simulate(ctx, req, domain.SimulateParams{Packages: []string{"./rt"}, Filter: "TestRan"})
	require.NoError(t, err)
	assert.True(t, res.Passed, res.Output)
	assert.Contains(t, res.Output, "GENERATED-CODE-RAN")
}

func render(t *testing.T, path string, data any) string {
	t.Helper()
	tmpl, err := template.ParseFiles(path)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, tmpl.Execute(&b, data))
	return b.String()
}

func TestRedTeam_HoldoutScenariosHiddenOutsideScenarioRuns(t *testing.T) {
	requireRedTeam(t)
	assert.Equal(t, string(pipeline.StageScenarioValidation), goservice.ScenarioStage)
	repo := redTeamRepo(t, "")
	src := fmt.Sprintf(`package rt

import (
	"os"
	"testing"
)

func TestPeek(t *testing.T) {
	b, err := os.ReadFile(%q)
	t.Logf("ATTACK-RAN holdout=%%q err=%%v", b, err)
}
`, filepath.Join(repo, ".cogworks", "scenarios", "holdout.toml"))
	c := startService(t, goservice.Options{})
	for _, tt := range []struct {
		stage   string
		visible bool
	}{
		{"code-generation", false},
		{"", false},
		{goservice.ScenarioStage, true},
	} {
		t.Run("stage "+tt.stage, func(t *testing.T) {
			res, err := c.Simulate(context.Background(), domain.Request{Stage: tt.stage, Repository: domain.Repository{Path: repo},
				Artifacts: []domain.Artifact{{Path: "rt/peek_test.go", Content: src}}}, domain.SimulateParams{Packages: []string{"./rt"}})
			require.NoError(t, err)
			require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
			if tt.visible {
				assert.Contains(t, res.Output, "expected answer: 42", "scenario runs see their scenarios")
			} else {
				assert.NotContains(t, res.Output, "expected answer", "the held-out scenarios are masked")
			}
		})
	}
}

func TestSandboxNetworkNeedsRepositoryAndOperator(t *testing.T) {
	requireRedTeam(t)
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
	src := fmt.Sprintf(`package rt

import (
	"net"
	"os"
	"testing"
)

func TestDial(t *testing.T) {
	c, err := net.Dial("tcp", %q)
	if err == nil {
		c.Close()
	}
	t.Logf("ATTACK-RAN dial-error=%%v GOPROXY=%%s", err, os.Getenv("GOPROXY"))
}
`, ln.Addr().String())
	for _, tt := range []struct {
		name     string
		config   string
		operator bool
		reached  bool
	}{
		{"neither", "", false, false},
		{"repository only", "[sandbox]\nnetwork = true\n", false, false},
		{"operator only", "", true, false},
		{"both", "[sandbox]\nnetwork = true\n", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startService(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{AllowNetwork: tt.operator}})
			res := simulateAttack(t, c, redTeamRepo(t, tt.config), domain.Artifact{Path: "rt/dial_test.go", Content: src})
			require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
			assert.Equal(t, tt.reached, strings.Contains(res.Output, "dial-error=<nil>"), res.Output)
			assert.Contains(t, res.Output, "GOPROXY=off", "executing steps never fetch modules")
		})
	}
}

func TestModulesDownloadedBeforeOfflineSteps(t *testing.T) {
	requireRedTeam(t)
	sum, err := os.ReadFile("../../go.sum")
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(sum), "\n") {
		if strings.HasPrefix(l, "golang.org/x/sync v0.24.0") {
			lines = append(lines, l)
		}
	}
	require.Len(t, lines, 2, "go.sum pins golang.org/x/sync v0.24.0, which the module cache holds")
	repo := redTeamRepo(t, "")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/rt\n\ngo 1.22\n\nrequire golang.org/x/sync v0.24.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.sum"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	src := "package rt\n\nimport (\n\t\"testing\"\n\n\t\"golang.org/x/sync/errgroup\"\n)\n\nfunc TestGroup(t *testing.T) {\n\tvar g errgroup.Group\n\tg.Go(func() error { return nil })\n\tif err := g.Wait(); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n"
	c := startService(t, goservice.Options{})
	res := simulateAttack(t, c, repo, domain.Artifact{Path: "rt/group_test.go", Content: src})
	assert.True(t, res.Passed, "a required module resolves from the read-only module cache: %s", res.Output)
}
