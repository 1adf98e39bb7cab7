package codegen_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// ASSERT-CODE-001…004 and -007 are written once, in codeScenarios, and run
// against the domain service the caller gives: here on a value domain
// service (stagetest.ValueDomain) whose answers are written down instead of
// computed by the toolchain, so that plain go test exercises code
// generation's feedback logic; codegen_toolchain_e2e_test.go runs the same
// scenarios against the real Go service (-tags e2e).

func TestAssertCODE001_ValidationDiagnosticsAreFedBack(t *testing.T) {
	t.Parallel()
	runOnValueFake(t, "ASSERT-CODE-001")
}

func TestAssertCODE002_SelfExplanatoryTestFailureIsFedVerbatim(t *testing.T) {
	t.Parallel()
	runOnValueFake(t, "ASSERT-CODE-002")
}

func TestAssertCODE003_ObscureTestFailureIsInterpreted(t *testing.T) {
	t.Parallel()
	runOnValueFake(t, "ASSERT-CODE-003")
}

func TestAssertCODE004_RetryBudgetExhaustionEscalatesWithEveryAttempt(t *testing.T) {
	t.Parallel()
	runOnValueFake(t, "ASSERT-CODE-004")
}

func TestAssertCODE007_DependentSWIReceivesDependencyOutputs(t *testing.T) {
	t.Parallel()
	runOnValueFake(t, "ASSERT-CODE-007")
}

// codeScenario is one ASSERT-CODE scenario.
type codeScenario struct {
	// value is what the Go service would answer in this scenario, written
	// down.
	value *stagetest.ValueDomain
	// run is the scenario's body against dom.
	run func(t *testing.T, dom stagekit.Domain)
}

// runOnValueFake runs scenario id on its value domain service.
func runOnValueFake(t *testing.T, id string) {
	t.Helper()
	s := scenarioFor(t, id)
	s.run(t, s.value)
}

// scenarioFor returns scenario id of codeScenarios.
func scenarioFor(t *testing.T, id string) codeScenario {
	t.Helper()
	s, ok := codeScenarios(t)[id]
	require.True(t, ok, "no scenario %s", id)
	return s
}

// widgetsPkg is the package the fixture's tests live in.
const widgetsPkg = "example.com/widgets/widgets"

// simpleRuns answers test runs of the simple counter: the base tree has
// no TestSimple; a head whose simple.go contains bad fails as fail says,
// any other head passes.
func simpleRuns(bad string, fail domain.SimulateResult) func(domain.Request, domain.SimulateParams) domain.SimulateResult {
	return func(req domain.Request, _ domain.SimulateParams) domain.SimulateResult {
		switch {
		case !stagetest.Carries(req, stagetest.SimplePath, ""):
			return domain.SimulateResult{Passed: true}
		case bad != "" && stagetest.Carries(req, stagetest.SimplePath, bad):
			return fail
		}
		return stagetest.PassingRun(widgetsPkg, "TestSimple")
	}
}

// codeScenarios is the table of ASSERT-CODE scenarios, by ASSERT id.
func codeScenarios(t *testing.T) map[string]codeScenario {
	// broken does not compile: a string returned as an int.
	broken := strings.Replace(stagetest.SimpleCode, "return s.n }", `return "many" }`, 1)
	brokenLine := lineOf(t, broken, `return "many"`)
	return map[string]codeScenario{
		"ASSERT-CODE-001": {
			value: &stagetest.ValueDomain{
				ValidateFn: func(req domain.Request) []domain.Diagnostic {
					if !stagetest.Carries(req, stagetest.SimplePath, `return "many"`) {
						return nil
					}
					return []domain.Diagnostic{{Artifact: stagetest.SimplePath, Location: domain.Location{File: stagetest.SimplePath, Line: brokenLine, Column: 36},
						Severity: domain.SeverityBlocking, Category: domain.CategoryTypeError, Message: `cannot use "many" (untyped string constant) as int value in return statement`}}
				},
				SimulateFn: simpleRuns("", domain.SimulateResult{}),
			},
			run: func(t *testing.T, dom stagekit.Domain) { validationDiagnosticsAreFedBack(t, dom, broken, brokenLine) },
		},
		"ASSERT-CODE-002": {
			value: &stagetest.ValueDomain{SimulateFn: simpleRuns("s.n += 2",
				stagetest.FailingRun(widgetsPkg, "TestSimple", domain.Location{File: stagetest.SimpleTestPath, Line: 10}, "simple_test.go:10: got 4, want 2", domain.ExplainsAssertion))},
			run: selfExplanatoryTestFailureIsFedVerbatim,
		},
		"ASSERT-CODE-003": {
			value: &stagetest.ValueDomain{SimulateFn: simpleRuns("s.n--",
				stagetest.FailingRun(widgetsPkg, "TestSimple", domain.Location{File: stagetest.SimpleTestPath, Line: 9}, "simple_test.go:9: counter misbehaves", ""))},
			run: obscureTestFailureIsInterpreted,
		},
		"ASSERT-CODE-004": {
			value: &stagetest.ValueDomain{NormaliseFn: func(req domain.Request) []domain.Diagnostic {
				if !stagetest.Carries(req, stagetest.SimplePath, "func {") {
					return nil
				}
				return []domain.Diagnostic{{Artifact: stagetest.SimplePath, Location: domain.Location{File: stagetest.SimplePath, Line: 3, Column: 6},
					Severity: domain.SeverityBlocking, Category: domain.CategorySyntaxError, Message: "expected 'IDENT', found '{'"}}
			}},
			run: retryBudgetExhaustionEscalatesWithEveryAttempt,
		},
		"ASSERT-CODE-007": {
			// Six compiles only with a's and b's code: the service says so
			// when a run lacks either.
			value: &stagetest.ValueDomain{SimulateFn: func(req domain.Request, _ domain.SimulateParams) domain.SimulateResult {
				if !stagetest.Carries(req, "widgets/n.go", "") {
					return domain.SimulateResult{Passed: true}
				}
				if !stagetest.Carries(req, "widgets/a.go", "func DoubleA") || !stagetest.Carries(req, "widgets/b.go", "func TripleB") {
					return stagetest.FailingRun(widgetsPkg, "TestSix", domain.Location{File: "widgets/n.go", Line: 4}, "undefined: DoubleA", domain.ExplainsCompileError)
				}
				return stagetest.PassingRun(widgetsPkg, "TestSix")
			}},
			run: dependentSWIReceivesDependencyOutputs,
		},
	}
}

func validationDiagnosticsAreFedBack(t *testing.T, dom stagekit.Domain, broken string, line int) {
	f := stagetest.NewBuildFixture(t, dom, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Code(t, map[string]string{stagetest.SimplePath: broken, stagetest.SimpleTestPath: stagetest.SimpleTest})
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event, "the engine moves on to scenario validation")
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2, "the LLM is re-invoked once")
	assert.NotContains(t, reqs[0], "previous attempt failed")
	assert.Contains(t, reqs[1], "type_error", "the diagnostic's category")
	assert.Contains(t, reqs[1], fmt.Sprintf("%s:%d", stagetest.SimplePath, line), "the diagnostic's file and line")
	assert.Contains(t, reqs[1], "[blocking type_error]", "the diagnostic's severity")
	assert.Contains(t, reqs[1], `cannot use "many"`, "the diagnostic's message")

	repo := testenv.Repo.String()
	branch := fmt.Sprintf("cogworks/%d/swi-1", f.Parent)
	files := f.Env.Sim.BranchFiles(repo, branch)
	assert.Equal(t, stagetest.SimpleCode, files[stagetest.SimplePath], "the second attempt is committed")
	assert.Equal(t, stagetest.CounterInterface, files["widgets/counter.go"], "stacked on the interface branch")
	rec := f.Snap.SubWorkItem("counter-simple")
	require.NotNil(t, rec)
	assert.Equal(t, branch, rec.Branch)
	assert.Equal(t, pipeline.SWIInProgress, rec.Status)
	assert.Equal(t, "counter-simple", f.Snap.CurrentSWI)
	assert.Contains(t, f.Env.Sim.Labels(repo, rec.Issue), pipeline.StatusLabel(pipeline.SWIInProgress))
	assert.NotContains(t, f.Env.Sim.Labels(repo, rec.Issue), pipeline.StatusLabel(pipeline.SWIPending))
	assert.Equal(t, []string{stagetest.SimplePath, stagetest.SimpleTestPath}, rec.Committed)
	assert.Equal(t, 2, rec.Usage.Calls, "calls booked per SWI")
}

func selfExplanatoryTestFailureIsFedVerbatim(t *testing.T, dom stagekit.Domain) {
	overcounting := strings.Replace(stagetest.SimpleCode, "s.n++", "s.n += 2", 1)
	f := stagetest.NewBuildFixture(t, dom, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Snap.SubWorkItem("counter-simple").Feedback = "Review: NewSimple lacks a doc comment example."
	f.Code(t, map[string]string{stagetest.SimplePath: overcounting, stagetest.SimpleTestPath: stagetest.SimpleTest})
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[0], "NewSimple lacks a doc comment example", "earlier review feedback is included")
	assert.Contains(t, reqs[1], "got 4, want 2", "the test output goes back as it is")
	assert.Contains(t, reqs[1], "simple_test.go:", "with its location")
	assert.Empty(t, f.Requests("interpret_failure"), "no interpretation for a self-explanatory failure")
	assert.Empty(t, f.Snap.SubWorkItem("counter-simple").Feedback, "consumed feedback is cleared")
}

func obscureTestFailureIsInterpreted(t *testing.T, dom stagekit.Domain) {
	decrementing := strings.Replace(stagetest.SimpleCode, "s.n++", "s.n--", 1)
	// obscureTest fails with a message that does not say what went wrong.
	obscureTest := strings.Replace(stagetest.SimpleTest, `if got, want := c.Value(), 2; got != want {
		t.Fatalf("got %d, want %d", got, want)
	}`, `if c.Value() != 2 {
		t.Fatal("counter misbehaves")
	}`, 1)
	f := stagetest.NewBuildFixture(t, dom, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Code(t, map[string]string{stagetest.SimplePath: decrementing, stagetest.SimpleTestPath: obscureTest})
	require.NoError(t, f.Script.AddJSON("interpret_failure", codegen.Interpretation{
		Summary: "TestSimple sees the wrong count", LikelyCause: "Inc decrements the counter instead of incrementing it",
		SuggestedFix: "use s.n++ in Inc", Locations: []string{stagetest.SimplePath},
	}))
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: obscureTest})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	interp := f.Requests("interpret_failure")
	require.Len(t, interp, 1, "the failure analyst is asked once")
	assert.Contains(t, interp[0], "counter misbehaves", "it sees the failure output")
	assert.Contains(t, interp[0], "--- /dev/null\n+++ b/"+stagetest.SimplePath+"\n@@ -0,0 +1,", "it sees the attempt's change as a diff")
	assert.Contains(t, interp[0], "+func (s *Simple) Inc() { s.n-- }")
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2)
	assert.Contains(t, reqs[1], "Inc decrements the counter instead of incrementing it", "the interpretation is in the retry context")
	assert.Contains(t, reqs[1], "use s.n++ in Inc")
}

func retryBudgetExhaustionEscalatesWithEveryAttempt(t *testing.T, dom stagekit.Domain) {
	f := stagetest.NewBuildFixture(t, dom, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Cfg.Budgets.SubWorkItemMaxRetries = 2
	f.Code(t, map[string]string{".github/workflows/ci.yml": "on: push\n", stagetest.SimplePath: stagetest.SimpleCode})
	f.Code(t, map[string]string{stagetest.SimplePath: "package widgets\n\nfunc {\n"})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	assert.Contains(t, esc.Reason, "counter-simple")
	assert.Contains(t, esc.Reason, "2 attempts")
	require.Len(t, esc.Attempts, 2, "every attempt is listed")
	assert.Equal(t, 1, esc.Attempts[0].N)
	assert.Contains(t, strings.Join(esc.Attempts[0].Diagnostics, "\n"), ".github/workflows/ci.yml")
	assert.Equal(t, 2, esc.Attempts[1].N)
	assert.Contains(t, esc.Attempts[1].Summary, "syntax")
	assert.Contains(t, strings.Join(esc.Attempts[1].Diagnostics, "\n"), "syntax_error")
	assert.Len(t, f.Requests("code_generation"), 2, "no attempt beyond the budget")
	_, ok := f.Env.Sim.BranchSHA(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assert.False(t, ok, "nothing committed")
}

func dependentSWIReceivesDependencyOutputs(t *testing.T, dom stagekit.Domain) {
	const (
		aCode = "package widgets\n\n// DoubleA doubles n.\nfunc DoubleA(n int) int { return 2 * n }\n"
		bCode = "package widgets\n\n// TripleB triples n.\nfunc TripleB(n int) int { return 3 * n }\n"
		nCode = "package widgets\n\n// Six multiplies n by six.\nfunc Six(n int) int { return DoubleA(TripleB(n)) }\n"
		nTest = "package widgets\n\nimport \"testing\"\n\nfunc TestSix(t *testing.T) {\n\tif Six(2) != 12 {\n\t\tt.Fatal(Six(2))\n\t}\n}\n"
	)
	items := []planner.SubWorkItem{
		{ID: "a", Title: "Doubling", Files: []string{"widgets/a.go"}, Interfaces: []string{"IF-COUNTER"}},
		{ID: "b", Title: "Tripling", Files: []string{"widgets/b.go"}, Interfaces: []string{"IF-COUNTER"}},
		{ID: "n", Title: "Six", Files: []string{"widgets/n.go"}, Interfaces: []string{"IF-COUNTER"}, DependsOn: []string{"a", "b"}},
	}
	f := stagetest.NewBuildFixture(t, dom, items, nil)
	repo := testenv.Repo.String()
	for i, c := range map[string]string{"a": aCode, "b": bCode} {
		rec := f.Snap.SubWorkItem(i)
		branch := stagekit.SWIBranch(f.Parent, *rec)
		rec.Status, rec.Branch = pipeline.SWICompleted, branch
		rec.Committed = pipeline.CommittedPaths(rec.Committed, []string{"widgets/" + i + ".go"})
		f.SeedBranchFrom(t, branch, f.Snap.Artifacts.InterfaceBranch, map[string]string{"widgets/" + i + ".go": c})
	}
	f.Code(t, map[string]string{"widgets/n.go": nCode, "widgets/n_test.go": nTest})

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err, "n passes only with a's and b's code in the run")
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, "n", f.Snap.CurrentSWI, "the SWI whose dependencies are completed starts")
	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 1)
	assert.Contains(t, reqs[0], "func DoubleA(n int) int", "dependency a's code is in the context")
	assert.Contains(t, reqs[0], "func TripleB(n int) int", "dependency b's code is in the context")
	assert.Contains(t, reqs[0], "type Counter interface", "the interface definitions are in the context")

	nBranch := fmt.Sprintf("cogworks/%d/swi-3", f.Parent)
	files := f.Env.Sim.BranchFiles(repo, nBranch)
	assert.Equal(t, nCode, files["widgets/n.go"])
	assert.Equal(t, aCode, files["widgets/a.go"], "the other dependency's files are applied")
	assert.Equal(t, bCode, files["widgets/b.go"])
	head, _ := f.Env.Sim.BranchSHA(repo, nBranch)
	commit, err := f.Env.Client.GetCommit(context.Background(), testenv.Repo, head)
	require.NoError(t, err)
	bHead, _ := f.Env.Sim.BranchSHA(repo, fmt.Sprintf("cogworks/%d/swi-2", f.Parent))
	assert.Equal(t, []string{bHead}, commit.Parents, "stacked on the last dependency's branch")
}
