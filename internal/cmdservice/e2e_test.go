package cmdservice_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/testverdict"
)

// startPython serves the python preset over a copy of testdata/pyrepo.
func startPython(t *testing.T) (*domain.Client, string) {
	t.Helper()
	e2e.RequireToolchain(t)
	cmdservicetest.RequirePytest(t)
	repo := t.TempDir()
	require.NoError(t, os.CopyFS(repo, os.DirFS("testdata/pyrepo")))
	d, err := cmdservice.Resolve(config.Domain{Name: "python", Preset: "python"})
	require.NoError(t, err)
	sock := cmdservicetest.Start(t, d, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 2 * time.Minute}})
	client, err := domain.NewClient(domain.ServiceConfig{Name: "python", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return client, repo
}

func simulate(t *testing.T, client *domain.Client, repo, filter string, artifacts ...domain.Artifact) domain.SimulateResult {
	t.Helper()
	res, err := client.Simulate(context.Background(), domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: artifacts},
		domain.SimulateParams{Filter: filter, Timeout: "90s"})
	require.NoError(t, err)
	return res
}

func testNamed(t *testing.T, tests []domain.TestResult, name string) domain.TestResult {
	t.Helper()
	for _, tr := range tests {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("no test %s among %+v", name, tests)
	return domain.TestResult{}
}

// TestPythonPresetFailingThenFixed runs pytest on a real tiny project in
// the sandbox: a broken sub fails test_sub, located at its assertion;
// the fix passes; a filter runs the one test it names.
func TestPythonPresetFailingThenFixed(t *testing.T) {
	client, repo := startPython(t)
	broken := domain.Artifact{Path: "calc.py", Content: "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"}

	res := simulate(t, client, repo, "", broken)
	assert.False(t, res.Passed, res.Output)
	assert.NotZero(t, res.ExitCode)
	failed := testNamed(t, res.Tests, "test_sub")
	assert.False(t, failed.Passed)
	assert.Equal(t, "tests/test_calc.py", failed.Package)
	assert.Contains(t, failed.Output, "assert 5 == 1")
	assert.True(t, testNamed(t, res.Tests, "test_add").Passed)
	require.Len(t, res.Diagnostics, 1, "%+v", res.Diagnostics)
	d := res.Diagnostics[0]
	assert.Equal(t, domain.CategoryTestFailure, d.Category)
	assert.Equal(t, domain.Location{File: "tests/test_calc.py", Line: 9}, d.Location)
	assert.Contains(t, d.Message, "test_sub")

	fixed := broken
	fixed.Content = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
	res = simulate(t, client, repo, "", fixed)
	assert.True(t, res.Passed, res.Output)
	assert.Zero(t, res.ExitCode)
	assert.Len(t, res.Tests, 2)
	assert.Empty(t, res.Diagnostics)

	res = simulate(t, client, repo, "test_add", broken)
	assert.True(t, res.Passed, res.Output)
	require.Len(t, res.Tests, 1)
	assert.Equal(t, "test_add", res.Tests[0].Name)

	res = simulate(t, client, repo, "test_nothing_matches")
	assert.False(t, res.Passed, "a filter that matched no test never passes")
	require.NotEmpty(t, res.Diagnostics)
	assert.Contains(t, res.Diagnostics[0].Message, "no test ran")
}

// TestPythonPresetExitZeroIsNotAPass: code under test that ends the
// process with status 0 before pytest writes its report gets no pass.
func TestPythonPresetExitZeroIsNotAPass(t *testing.T) {
	client, repo := startPython(t)
	res := simulate(t, client, repo, "", domain.Artifact{Path: "tests/test_exit.py", Content: "import os\n\n\ndef test_exit():\n    os._exit(0)\n"})
	assert.False(t, res.Passed, res.Output)
	assert.NotZero(t, res.ExitCode)
	require.NotEmpty(t, res.Diagnostics)
	assert.Contains(t, res.Diagnostics[0].Message, "no test results")
}

// TestPythonPresetValidate reports a syntax error at its file and line.
func TestPythonPresetValidate(t *testing.T) {
	client, repo := startPython(t)
	res, err := client.Validate(context.Background(), domain.Request{
		Repository: domain.Repository{Path: repo},
		Artifacts:  []domain.Artifact{{Path: "calc.py", Content: "def add(a, b):\n    return a +\n"}},
	})
	require.NoError(t, err)
	require.NotEmpty(t, res.Diagnostics)
	d := res.Diagnostics[0]
	assert.Equal(t, domain.SeverityBlocking, d.Severity)
	assert.Equal(t, "calc.py", d.Location.File)
	assert.Equal(t, 2, d.Location.Line)

	res, err = client.Validate(context.Background(), domain.Request{Repository: domain.Repository{Path: repo}})
	require.NoError(t, err)
	for _, d := range res.Diagnostics {
		assert.NotEqual(t, domain.SeverityBlocking, d.Severity, "%+v", d)
	}
}

// startCustom serves a domain of shell commands over repo.
func startCustom(t *testing.T, d config.Domain, opts cmdservice.Options) *domain.Client {
	t.Helper()
	e2e.RequireToolchain(t)
	resolved, err := cmdservice.Resolve(d)
	require.NoError(t, err)
	sock := cmdservicetest.Start(t, resolved, opts)
	client, err := domain.NewClient(domain.ServiceConfig{Name: d.Name, Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	return client
}

// TestSetupPreparesTheWorkspaceAndReportsAreFresh: what set-up writes in
// the workspace is there for the tests, and no secret reaches it; a JUnit report the repository
// ships (even one at the report directory's name) is never read.
func TestSetupPreparesTheWorkspaceAndReportsAreFresh(t *testing.T) {
	repo := t.TempDir()
	forged := `<testsuite name="s"><testcase name="forged"/></testsuite>`
	require.NoError(t, os.MkdirAll(repo+"/cogworks/report", 0o755))
	require.NoError(t, os.WriteFile(repo+"/cogworks/report/junit.xml", []byte(forged), 0o644))
	require.NoError(t, os.WriteFile(repo+"/junit.xml", []byte(forged), 0o644))
	client := startCustom(t, config.Domain{
		Name: "shell", ArtifactTypes: []string{".sh"},
		// A secret in the service's environment must not reach set-up.
		Setup: `echo "prepared$GITHUB_TOKEN" > .setup-marker`,
		Test: `if [ "$(cat .setup-marker)" = prepared ]; then r=ok; else r=missing; fi; ` +
			`printf '<testsuite name="s"><testcase name="%s"/></testsuite>' "$r" > "$COGWORKS_REPORT_DIR/r.xml"`,
		TestOne: `exit 0`,
	}, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{Environ: append(os.Environ(), "GITHUB_TOKEN=ghs_secret")}})

	res := simulate(t, client, repo, "")
	assert.True(t, res.Passed, res.Output)
	require.Len(t, res.Tests, 1)
	assert.Equal(t, "ok", res.Tests[0].Name, "set-up ran first, in the same workspace")

	// The one-test command writes no report: the shipped ones must not
	// stand in for it.
	res = simulate(t, client, repo, "anything")
	assert.False(t, res.Passed)
	assert.Empty(t, res.Tests)
}

// TestSetupNetworkNeedsTheOperator: a domain asking for the network in
// set-up gets only the sandbox's own loopback unless the operator allows
// it (and then the host's links, which shows the check is not vacuous).
func TestSetupNetworkNeedsTheOperator(t *testing.T) {
	const noLink = `n=$(tail -n +3 /proc/net/dev | grep -vc '^ *lo:'); if [ "$n" != 0 ]; then echo has-network; exit 3; fi`
	for _, tt := range []struct {
		name  string
		allow bool
	}{{"operator refuses", false}, {"operator allows", true}} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.allow && !hostHasLink(t) {
				t.Skip("the host has no network link besides loopback")
			}
			client := startCustom(t, config.Domain{
				Name: "net", ArtifactTypes: []string{".sh"}, SetupNetwork: true, Setup: noLink,
				Test: `printf '<testsuite><testcase name="t"/></testsuite>' > "$COGWORKS_REPORT_DIR/r.xml"`,
			}, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{AllowNetwork: tt.allow}})
			_, err := client.Simulate(context.Background(), domain.Request{Repository: domain.Repository{Path: t.TempDir()}}, domain.SimulateParams{Timeout: "60s"})
			if !tt.allow {
				require.NoError(t, err)
				return
			}
			var derr *domain.Error
			require.ErrorAs(t, err, &derr)
			assert.Equal(t, domain.CodeToolFailed, derr.Code)
			assert.Contains(t, derr.Message, "has-network")
			assert.Contains(t, derr.Message, "domain net")
		})
	}
}

func hostHasLink(t *testing.T) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/net/dev")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines[min(2, len(lines)):] {
		if !strings.HasPrefix(strings.TrimSpace(l), "lo:") {
			return true
		}
	}
	return false
}

// BenchmarkPythonSimulate is one simulate of the python preset on the
// two-test project: workspace copy, pytest in a fresh sandbox, report read.
func BenchmarkPythonSimulate(b *testing.B) {
	e2e.RequireToolchain(b)
	cmdservicetest.RequirePytest(b)
	repo := b.TempDir()
	require.NoError(b, os.CopyFS(repo, os.DirFS("testdata/pyrepo")))
	d, err := cmdservice.Resolve(config.Domain{Name: "python", Preset: "python"})
	require.NoError(b, err)
	sock := cmdservicetest.Start(b, d, cmdservice.Options{})
	client, err := domain.NewClient(domain.ServiceConfig{Name: "python", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(b, err)
	b.Cleanup(client.Close)
	for b.Loop() {
		res, err := client.Simulate(context.Background(), domain.Request{Repository: domain.Repository{Path: repo}}, domain.SimulateParams{Timeout: "60s"})
		if err != nil || !res.Passed {
			b.Fatalf("simulate: %v %+v", err, res)
		}
	}
}

// TestJavaScriptPresetNpmTestAloneNeverPasses: a package with neither
// vitest nor jest-junit falls back to `npm test`, which writes no JUnit
// report: its exit status 0 is not a pass.
func TestJavaScriptPresetNpmTestAloneNeverPasses(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("needs npm")
	}
	repo := t.TempDir()
	require.NoError(t, os.WriteFile(repo+"/package.json", []byte(`{"name":"t","version":"1.0.0","scripts":{"test":"node -e \"console.log('all good')\""}}`), 0o644))
	client := startCustom(t, config.Domain{Name: "web", Preset: "javascript"}, cmdservice.Options{})
	res := simulate(t, client, repo, "")
	assert.False(t, res.Passed, res.Output)
	assert.Contains(t, res.Output, "all good", "npm test ran")
	require.NotEmpty(t, res.Diagnostics)
	assert.Contains(t, res.Diagnostics[0].Message, "no JUnit XML report")
}

// TestWorkspaceQuota: a command that writes beyond the workspace quota
// fails the request, whatever it exits with.
func TestWorkspaceQuota(t *testing.T) {
	client := startCustom(t, config.Domain{
		Name: "fill", ArtifactTypes: []string{".sh"},
		Test: `head -c 3000000 /dev/zero > big; printf '<testsuite><testcase name="t"/></testsuite>' > "$COGWORKS_REPORT_DIR/r.xml"`,
	}, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{WorkspaceBytes: 2 << 20}})
	_, err := client.Simulate(context.Background(), domain.Request{Repository: domain.Repository{Path: t.TempDir()}}, domain.SimulateParams{Timeout: "60s"})
	var derr *domain.Error
	require.ErrorAs(t, err, &derr)
	assert.Equal(t, domain.CodeToolFailed, derr.Code)
	assert.Contains(t, derr.Message, "quota")
}

// TestPythonPresetDeclaredTestsMatchTheRun: the tests the service declares
// for a test file (langmap.Tests) are named as pytest's JUnit report names
// their runs — functions, methods of a Test class, parameter sets — so
// the verdict finds every one of them run; a declared test the run
// dropped is found missing.
func TestPythonPresetDeclaredTestsMatchTheRun(t *testing.T) {
	client, repo := startPython(t)
	const file = "tests/test_more.py"
	src := "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize(\"a\", [1, 2])\ndef test_param(a):\n    assert add(a, 0) == a\n\n\n" +
		"class TestAdd:\n    def test_zero(self):\n        assert add(0, 0) == 0\n\n\ndef test_plain():\n    assert add(1, 1) == 2\n"
	res, err := client.Simulate(context.Background(), domain.Request{Repository: domain.Repository{Path: repo},
		Artifacts: []domain.Artifact{{Path: file, Content: src}}}, domain.SimulateParams{Paths: []string{file}, Timeout: "90s"})
	require.NoError(t, err)
	require.True(t, res.Passed, res.Output)
	names := []string{}
	for _, d := range res.DeclaredTests {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"test_param", "test_zero", "test_plain"}, names)
	v := testverdict.Judge(testverdict.Input{Head: res, Required: testverdict.Decls(res.DeclaredTests)})
	assert.True(t, v.Passed, "every declared test is found among the run's: %q", v.Problems)

	dropped := res
	dropped.Tests = slices.DeleteFunc(slices.Clone(res.Tests), func(tr domain.TestResult) bool { return tr.Name == "test_zero" })
	v = testverdict.Judge(testverdict.Input{Head: dropped, Required: testverdict.Decls(res.DeclaredTests)})
	require.Len(t, v.Problems, 1)
	assert.Contains(t, v.Problems[0], "tests/test_more.py.test_zero")
}
