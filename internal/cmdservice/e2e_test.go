package cmdservice_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
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
	sock := cmdservicetest.Start(t, d, cmdservice.Options{TestTimeout: 2 * time.Minute})
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
