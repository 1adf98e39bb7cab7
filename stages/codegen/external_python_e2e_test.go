package codegen_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestExternalPythonServiceIsChosenAndRunsItsTests is issue 27's "done
// when": a Python service written to docs/domain-services.md outside
// CogWorks (domaintest.PythonService, a python3 process on a unix socket)
// is registered after a Go service, connected and routed as the
// production wiring does (domain.Connect, domain.NewRouter), and a Python
// change goes to it alone: its real tests run, the first attempt's real
// failure is fed back, and the second attempt is committed. Before issue
// 27 the wiring chose the service covering ".go" (Resolve([".go"])) and
// code generation simulated only directories holding .go files
// (goPackages): this change would have been committed with no test run.
func TestExternalPythonServiceIsChosenAndRunsItsTests(t *testing.T) {
	t.Parallel()
	e2e.RequireToolchain(t)
	sock := domaintest.StartPython(t)
	goSvc := &domaintest.Fake{}
	goSrv := httptest.NewServer(domaintest.Handler(goSvc, domain.HandshakeResult{
		Name: "go", ServiceVersion: "0.1.0", APIVersion: domain.APIVersion, Domain: "software",
		Capabilities: []string{domain.MethodValidate, domain.MethodSimulate}, ArtifactTypes: []string{".go", "go.mod"},
		InterfaceTypes: []string{}, InterfaceVersions: map[string][]string{},
	}))
	t.Cleanup(goSrv.Close)
	set := domain.Connect(context.Background(), []domain.ServiceConfig{
		{Name: "go", Transport: domain.TransportHTTP, Endpoint: goSrv.URL},
		{Name: "pyservice", Transport: domain.TransportUnix, Endpoint: sock},
	})
	t.Cleanup(func() {
		for _, st := range set.Services() {
			if st.Client != nil {
				st.Client.Close()
			}
		}
	})
	router := domain.NewRouter(set)

	const test = "tests/test_calc.py"
	item := planner.SubWorkItem{ID: "calc", Title: "Add", Description: "Add add().", Files: []string{"calc.py", test}, Tests: "test_add"}
	f := stagetest.NewBuildFixture(t, router, []planner.SubWorkItem{item}, map[string]string{
		"calc.py": "def sub(a, b):\n    return a - b\n",
		test:      "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
	})
	addTest := codegen.CodeEdit{Path: test, Old: "from calc import sub\n", New: "from calc import add, sub\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"}
	wrong := codegen.CodeEdit{Path: "calc.py", Old: "    return a - b\n", New: "    return a - b\n\n\ndef add(a, b):\n    return a - b\n"}
	right := codegen.CodeEdit{Path: "calc.py", Old: "    return a - b\n", New: "    return a - b\n\n\ndef add(a, b):\n    return a + b\n"}
	f.Answer(t, codegen.CodeOutput{Edits: []codegen.CodeEdit{wrong, addTest}})
	// The service's failure does not say it explains itself: the failure
	// analyst reads the real output first.
	require.NoError(t, f.Script.AddJSON("interpret_failure", codegen.Interpretation{
		Summary: "test_add fails", LikelyCause: "add subtracts", SuggestedFix: "return a + b in add", Locations: []string{"calc.py"},
	}))
	f.Answer(t, codegen.CodeOutput{Edits: []codegen.CodeEdit{right, addTest}})

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Empty(t, goSvc.Calls(domain.MethodSimulate), "no Go file changed: the Go service runs nothing")
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2, "the first attempt's test really failed")
	interp := f.Requests("interpret_failure")
	require.Len(t, interp, 1)
	assert.Contains(t, interp[0], "test_add failed", "the Python service's real test run failed test_add")
	assert.Contains(t, interp[0], "assert add(1, 2) == 3", "with its traceback")
	assert.Contains(t, reqs[1], "return a + b in add", "the interpretation is fed back")
	files := f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assert.Contains(t, files["calc.py"], "return a + b")
}
