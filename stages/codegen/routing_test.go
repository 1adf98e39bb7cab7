package codegen_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// A Python change goes to the service declaring .py, and that service is
// asked to test the files the change touched. Before issue 27 the stages
// were handed the service covering ".go" (wire.go) and simulated only
// directories holding .go files (goPackages): this change was
// "validated" with no test run. The first run's service claims a pass
// while a test failed: the verdict (internal/testverdict) fails it anyway
// and the failure is fed back.
func TestPythonChangeIsTestedByThePythonService(t *testing.T) {
	t.Parallel()
	goSvc, pySvc := &domaintest.Fake{}, &domaintest.Fake{}
	pySvc.Sims = []domain.SimulateResult{
		{Passed: true, ExitCode: 0, Output: "1 failed, 1 passed", Tests: []domain.TestResult{
			{Name: "test_add", Package: "tests/test_calc.py", Passed: false, Output: "assert 3 == 4"},
			{Name: "test_sub", Package: "tests/test_calc.py", Passed: true},
		}},
		{Passed: false, ExitCode: 5, Output: "no tests ran"}, // the base tree, without the change
		{Passed: true, Output: "2 passed", Tests: []domain.TestResult{
			{Name: "test_add", Package: "tests/test_calc.py", Passed: true},
			{Name: "test_sub", Package: "tests/test_calc.py", Passed: true},
		}},
	}
	router := domain.NewRouterOf(
		domain.Routed{Name: "go", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".go", "go.mod"}}, Client: goSvc},
		domain.Routed{Name: "python", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".py"}}, Client: pySvc},
	)
	item := planner.SubWorkItem{ID: "calc", Title: "Calculator", Description: "Add and subtract.",
		Files: []string{"src/pkg/calc.py", "tests/test_calc.py"}, Tests: "test_add, test_sub"}
	f := stagetest.NewBuildFixture(t, router, []planner.SubWorkItem{item}, nil)
	code := map[string]string{
		"src/pkg/calc.py":    "def add(a, b):\n    return a + b\n",
		"tests/test_calc.py": "from pkg.calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
	}
	f.Code(t, code)
	f.Code(t, code)

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)

	assert.Empty(t, goSvc.Calls(domain.MethodSimulate), "no Go file changed")
	sims := pySvc.Calls(domain.MethodSimulate)
	require.Len(t, sims, 3, "attempt 1, its base tree, attempt 2")
	for _, c := range sims {
		assert.Equal(t, []string{"src/pkg/calc.py", "tests/test_calc.py"}, c.Params.Paths, "the service is asked about the change's files")
		assert.Empty(t, c.Params.Packages, "no Go package")
	}
	assert.Len(t, pySvc.Calls(domain.MethodValidate), 2)
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2, "the claimed pass with a failing test is not believed")
	assert.Contains(t, reqs[1], "test_add")
	files := f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assert.Equal(t, code["src/pkg/calc.py"], files["src/pkg/calc.py"])
}

// A change no registered service covers is not committed untested: it
// fails with what to configure.
func TestChangeNoServiceCoversSaysWhatToConfigure(t *testing.T) {
	t.Parallel()
	router := domain.NewRouterOf(domain.Routed{Name: "go", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".go", "go.mod"}}, Client: &domaintest.Fake{}})
	item := planner.SubWorkItem{ID: "lib", Title: "Lib", Description: "A Rust function.", Files: []string{"src/lib.rs"}}
	f := stagetest.NewBuildFixture(t, router, []planner.SubWorkItem{item}, nil)
	f.Code(t, map[string]string{"src/lib.rs": "pub fn one() -> i32 { 1 }\n"})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.Error(t, err)
	var nse *domain.NoServiceError
	require.ErrorAs(t, err, &nse)
	assert.Contains(t, err.Error(), ".cogworks/services.toml")
	assert.Contains(t, err.Error(), "docs/domain-services.md")
}
