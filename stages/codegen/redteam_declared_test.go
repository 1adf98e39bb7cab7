package codegen_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestRedTeamPythonPlannedTestThatNeverRanFailsTheRun: a Python change
// writes test_add and a conftest.py that deselects it, so the run shows
// only the old test_sub passing and the service says passed. The Python
// service declares test_add (Extension API 1.4, simulate's
// declared_tests), so the run fails: a test the change's test file
// declares did not run. Before, CogWorks read declared tests from
// _test.go files only (testsOfChange skipped every other file), so
// Required was empty for a Python change and this attempt was committed
// as "validated" with its new test never run.
func TestRedTeamPythonPlannedTestThatNeverRanFailsTheRun(t *testing.T) {
	t.Parallel()
	const file = "tests/test_calc.py"
	declared := []domain.TestDeclaration{
		{File: file, Name: "test_sub", Package: file, Line: 3, EndLine: 4},
		{File: file, Name: "test_add", Package: file, Line: 6, EndLine: 7},
	}
	sub := domain.TestResult{Name: "test_sub", Package: file, Passed: true}
	add := domain.TestResult{Name: "test_add", Package: file, Passed: true}
	py := &domaintest.Fake{Sims: []domain.SimulateResult{
		{Passed: true, Output: "1 passed, 1 deselected", Tests: []domain.TestResult{sub}, DeclaredTests: declared}, // attempt 1
		{Passed: true, Output: "1 passed", Tests: []domain.TestResult{sub}, DeclaredTests: declared[:1]},           // its base tree
		{Passed: true, Output: "2 passed", Tests: []domain.TestResult{sub, add}, DeclaredTests: declared},          // attempt 2
	}}
	router := domain.NewRouterOf(domain.Routed{Name: "python", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".py"}}, Client: py})
	item := planner.SubWorkItem{ID: "calc", Title: "Add", Description: "Add add().", Files: []string{"src/calc/ops.py", file}, Tests: "test_add"}
	baseTest := "from calc.ops import sub\n\ndef test_sub():\n    assert sub(3, 1) == 2\n"
	f := stagetest.NewBuildFixture(t, router, []planner.SubWorkItem{item}, map[string]string{
		"src/calc/ops.py": "def sub(a, b):\n    return a - b\n", file: baseTest,
	})
	edits := []codegen.CodeEdit{
		{Path: "src/calc/ops.py", Old: "    return a - b\n", New: "    return a - b\n\ndef add(a, b):\n    return a + b\n"},
		{Path: file, Old: "    assert sub(3, 1) == 2\n", New: "    assert sub(3, 1) == 2\n\ndef test_add():\n    assert add(1, 2) == 3\n"},
	}
	f.Answer(t, codegen.CodeOutput{Edits: edits, Files: []codegen.CodeFile{{Path: "conftest.py",
		Content: "def pytest_collection_modifyitems(config, items):\n    items[:] = [i for i in items if i.name != 'test_add']\n"}}})
	f.Answer(t, codegen.CodeOutput{Edits: edits})

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2, "the first attempt's pass is refused")
	assert.Contains(t, reqs[1], "planned tests did not run and pass: tests/test_calc.py.test_add")
	assert.False(t, strings.Contains(reqs[1], "test_calc.py.test_sub"), "test_sub ran: it is not named")
}
