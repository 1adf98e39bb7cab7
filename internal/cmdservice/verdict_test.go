package cmdservice

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
)

func TestJudge(t *testing.T) {
	pass := junitCaseResult{name: "test_add", file: "tests/test_calc.py", line: 3, passed: true}
	skip := junitCaseResult{name: "test_later", file: "tests/test_calc.py", passed: true, skipped: true}
	fail := junitCaseResult{name: "test_sub", file: "tests/test_calc.py", line: 7,
		output: "assert 1 == 2\ntests/test_calc.py:9: AssertionError\n"}
	tests := []struct {
		name     string
		cases    []junitCaseResult
		readErr  error
		exit     int
		filter   string
		passed   bool
		exitCode int
		diag     string
	}{
		{"every test passed, exit 0", []junitCaseResult{pass, skip}, nil, 0, "", true, 0, ""},
		{"a failure wins over exit 0", []junitCaseResult{pass, fail}, nil, 0, "", false, 1, "test_sub failed"},
		{"exit status alone never passes: no report", nil, errors.New("no report"), 0, "", false, 1, "no test results"},
		{"no test ran", nil, nil, 0, "", false, 1, "no test ran"},
		{"only skipped tests prove nothing", []junitCaseResult{skip}, nil, 0, "", false, 1, "no test ran"},
		{"filter matched nothing", nil, nil, 5, "test_x", false, 5, `filter "test_x" matched no test`},
		{"passing tests but non-zero exit", []junitCaseResult{pass}, nil, 3, "", false, 3, "exited 3"},
	}
	ws := &workspace{dir: "/tmp/ws", files: map[string]bool{"tests/test_calc.py": true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := judge(ws, tt.cases, tt.readErr, tt.exit, tt.filter)
			assert.Equal(t, tt.passed, got.Passed)
			assert.Equal(t, tt.exitCode, got.ExitCode)
			require.Len(t, got.Tests, len(tt.cases))
			if tt.diag == "" {
				assert.Empty(t, got.Diagnostics)
				return
			}
			require.NotEmpty(t, got.Diagnostics)
			assert.Contains(t, got.Diagnostics[0].Message, tt.diag)
			assert.Equal(t, domain.CategoryTestFailure, got.Diagnostics[0].Category)
		})
	}
}

func TestJudgeLocatesFailureAtItsAssertion(t *testing.T) {
	ws := &workspace{dir: "/tmp/ws", files: map[string]bool{"tests/test_calc.py": true, "src/calc.py": true}}
	got := judge(ws, []junitCaseResult{{name: "test_sub", file: "tests/test_calc.py", line: 7,
		output: "src/calc.py:4: in sub\ntests/test_calc.py:9: AssertionError\n/usr/lib/python3/x.py:1: noise"}}, nil, 1, "")
	require.Len(t, got.Diagnostics, 1)
	d := got.Diagnostics[0]
	assert.Equal(t, domain.Location{File: "tests/test_calc.py", Line: 9}, d.Location)
	assert.Equal(t, "tests/test_calc.py", d.Artifact)
	assert.Equal(t, domain.ExplainsAssertion, d.Explains)
	assert.Equal(t, "tests/test_calc.py", got.Tests[0].Package)
}

func TestRelPathNamesOnlyWorkspaceFiles(t *testing.T) {
	ws := &workspace{dir: "/tmp/cogworks-cmdws-1", files: map[string]bool{"src/a.py": true}}
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"src/a.py", "src/a.py", true},
		{"./src/a.py", "src/a.py", true},
		{"file:///cogworks/workspace/src/a.py", "src/a.py", true},
		{"/tmp/cogworks-cmdws-1/src/a.py", "src/a.py", true},
		{"/usr/lib/python3/os.py", "", false},
		{"../secret", "", false},
		{"src/new.py", "", false}, // written by a command: not a file the request had
	}
	for _, tt := range tests {
		got, ok := ws.relPath(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestEveryConfigPresetIsDefined(t *testing.T) {
	for _, name := range config.DomainPresets() {
		d, err := Resolve(config.Domain{Name: "x", Preset: name})
		require.NoError(t, err, name)
		assert.NotEmpty(t, d.ArtifactTypes, name)
		assert.NotEmpty(t, d.Test, name)
		assert.NotEmpty(t, d.TestOne, name)
		assert.Contains(t, d.TestOne, "{filter}", name)
	}
	assert.Len(t, presets, len(config.DomainPresets()), "a preset config does not accept is unreachable")
}

func TestResolveOverrides(t *testing.T) {
	d, err := Resolve(config.Domain{Name: "api", Preset: "python", Test: "make test", Lint: "mypy .", ArtifactTypes: []string{".py"}, Setup: "pip install -e .", SetupNetwork: true})
	require.NoError(t, err)
	assert.Equal(t, "make test", d.Test)
	assert.Empty(t, d.TestOne, "the preset's one-test command runs the preset's runner, not the override")
	assert.Equal(t, []string{"mypy ."}, d.Checks)
	assert.Equal(t, "auto", d.LintOutput)
	assert.Equal(t, "junit", d.TestOutput)
	assert.True(t, d.SetupNetwork)
	assert.Equal(t, "pip install -e .", d.Setup)
	assert.NotEmpty(t, d.Format, "an override leaves the preset's other commands")

	_, err = Resolve(config.Domain{Name: "bare", Test: "make test"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"bare"`)
}

func TestWithPythonQuotes(t *testing.T) {
	d, err := Resolve(config.Domain{Name: "p", Preset: "python"})
	require.NoError(t, err)
	d = d.withPython("/opt/my python/bin/python3")
	assert.Contains(t, d.Test, `'/opt/my python/bin/python3' -m pytest`)
	assert.NotContains(t, d.Checks[0], "{python}")
	assert.False(t, d.usesPython())
}

// TestDeclaredTestsAreReadFromTheRequestsTree: simulate's declared_tests
// (Extension API 1.4) come from the domain's own files among the paths,
// as the request laid them out; another domain's files, absent paths and
// files outside the workspace declare nothing.
func TestDeclaredTestsAreReadFromTheRequestsTree(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "tests", "test_old.py"), []byte("def test_old():\n    pass\n"), 0o644))
	ws, err := prepareWorkspace(domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
		{Path: "tests/test_calc.py", Content: "def test_add():\n    assert 1\n\ndef helper():\n    pass\n"},
		{Path: "web/a.test.ts", Content: "test('x', () => {})\n"},
	}})
	require.NoError(t, err)
	t.Cleanup(ws.Remove)
	d, err := Resolve(config.Domain{Name: "python", Preset: "python"})
	require.NoError(t, err)
	s := &service{d: d}
	got := s.declaredTests(ws, []string{"tests/test_calc.py", "tests/test_old.py", "tests/test_gone.py", "web/a.test.ts", "src/calc.py"})
	assert.Equal(t, []domain.TestDeclaration{
		{File: "tests/test_calc.py", Name: "test_add", Package: "tests/test_calc.py", Line: 1, EndLine: 2},
		{File: "tests/test_old.py", Name: "test_old", Package: "tests/test_old.py", Line: 1, EndLine: 2},
	}, got)
	assert.Equal(t, []domain.TestDeclaration{}, s.declaredTests(ws, nil), "none is an empty list: the service speaks 1.4")
}
