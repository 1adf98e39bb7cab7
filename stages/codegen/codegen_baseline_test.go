package codegen_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testverdict"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/stages"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The regress fixture (testdata/regress) is a library whose base commit
// already has a failing test (TestUpstreamKnownFailure) and a
// path-sensitive test (TestCallerFileExists); the issue is a bug in Add.
const (
	addBug      = "\treturn b - a\n"
	addFix      = "\treturn a + b\n"
	addOffByOne = "\treturn a + b + 1\n"
	addTest     = "package regress\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got, want := Add(2, 3), 5; got != want {\n\t\tt.Fatalf(\"Add(2, 3): got %d, want %d\", got, want)\n\t}\n}\n"
)

// dirFiles reads every file under dir.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	root := os.DirFS(dir)
	require.NoError(t, fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		files[p] = string(b)
		return err
	}))
	return files
}

// newRegressFixture seeds testdata/regress as the default branch and the
// workspace, with one plan item fixing Add, checked by the real Go service.
func newRegressFixture(t *testing.T) (*stagetest.BuildFixture, *stagetest.CountingDomain) {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	base := dirFiles(t, "testdata/regress")
	env.Sim.SeedFiles(repo, "main", base)
	ws := t.TempDir()
	for p, c := range base {
		stagetest.WriteFile(t, ws, p, c)
	}
	parent := env.Sim.SeedIssue(repo, "alice", "Add subtracts", "Add(2, 3) returns 1; it must return 5.", pipeline.LabelRun)
	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageCodeGeneration
	snap.Artifacts.InterfaceBranch = "main" // the interface stage had nothing to change
	it := planner.SubWorkItem{ID: "add", Title: "Add adds", Description: "Return a + b and test it.",
		Files: []string{"calc.go", "add_test.go"}, Symbols: []string{"Add"}, Interfaces: []string{},
		Tests: "TestAdd", DependsOn: []string{}}
	n := env.Sim.SeedIssue(repo, testenv.Bot, it.Title, it.Description, pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending))
	snap.SubWorkItems = []pipeline.SWI{{SubWorkItem: it, Issue: n, Order: 1, Status: pipeline.SWIPending}}
	dom := &stagetest.CountingDomain{Client: stagetest.StartGoService(t)}
	script := llm.NewScripted()
	cfg := config.Default()
	cfg.Budgets.SubWorkItemMaxRetries = 2
	f := &stagetest.BuildFixture{Env: env, Script: script, Cfg: cfg, Snap: &snap, Parent: parent,
		Deps: stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws, Clock: env.Clock.Now}}}
	return f, dom
}

func addAnswer(body string) codegen.CodeOutput {
	return codegen.CodeOutput{Notes: "fix Add",
		Edits: []codegen.CodeEdit{{Path: "calc.go", Old: addBug, New: body}},
		Files: []codegen.CodeFile{{Path: "add_test.go", Content: addTest}}}
}

// TestCodegenFailsOnlyOnRegressions: a test that already fails at base
// does not reject the fix (it is reported as pre-existing), while a test
// the change breaks does, and the feedback names only that one. The base
// runs once for both attempts.
func TestCodegenFailsOnlyOnRegressions(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, dom := newRegressFixture(t)
	f.Answer(t, addAnswer(addOffByOne))
	f.Answer(t, addAnswer(addFix))

	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "(attempt 2)")
	const pre = "pre-existing test failures (fail at base too, not regressions; eligible because the change did not write or alter them): example.com/regress.TestUpstreamKnownFailure"
	assert.Contains(t, res.Summary, pre)
	assert.Contains(t, res.Summary, "Tests ran: 3 passed, 0 skipped — example.com/regress.TestAdd", "the tests that ran are named")
	_, excused, _ := strings.Cut(res.Summary, "Not regressions:")
	assert.NotContains(t, excused, "TestCallerFileExists", "the path-sensitive test passes at base and after the fix")
	assert.NotContains(t, res.Summary, "flaky")
	notes := f.Snap.SubWorkItems[0].TestNotes
	require.Len(t, notes, 2, "kept for the PR")
	assert.True(t, strings.HasPrefix(notes[0], "tests ran: 3 passed, 0 skipped"))
	assert.Equal(t, pre, notes[1])

	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2)
	fb := reqs[1][strings.Index(reqs[1], "Attempt 1 was rejected"):]
	assert.Contains(t, fb, "Add(2, 3): got 6, want 5", "the regression is fed back")
	assert.NotContains(t, fb, "TestUpstreamKnownFailure", "a failure already at base is not the model's to fix")
	// attempt 1: run, base (no re-run: TestAdd is the change's own test,
	// never excused as flaky); attempt 2: run (base cached).
	assert.Equal(t, int32(3), dom.Simulations.Load())

	got := f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assert.Equal(t, strings.Replace(dirFiles(t, "testdata/regress")["calc.go"], addBug, addFix, 1), got["calc.go"])
	assert.Equal(t, addTest, got["add_test.go"])
}

// TestCodegenRegressionStillEscalates: a change whose own test keeps
// failing is rejected on every attempt, base or no base.
func TestCodegenRegressionStillEscalates(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, _ := newRegressFixture(t)
	f.Answer(t, addAnswer(addOffByOne))
	f.Answer(t, addAnswer(addOffByOne))
	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	require.Len(t, esc.Attempts, 2)
	assert.Contains(t, strings.Join(esc.Attempts[1].Diagnostics, "\n"), "TestAdd failed")
	assert.NotContains(t, strings.Join(esc.Attempts[1].Diagnostics, "\n"), "TestUpstreamKnownFailure")
}

// scriptedSimulate answers simulate from a queue (the flaky test's
// outcomes cannot be reproduced on demand by a real toolchain); every
// other method is the embedded Domain's (none is called).
type scriptedSimulate struct {
	stagekit.Domain
	mu      sync.Mutex
	results []domain.SimulateResult
	params  []domain.SimulateParams
}

func (s *scriptedSimulate) Simulate(_ context.Context, _ domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.params = append(s.params, p)
	if len(s.results) == 0 {
		return domain.SimulateResult{}, fmt.Errorf("unexpected simulate %d", len(s.params))
	}
	r := s.results[0]
	s.results = s.results[1:]
	return r, nil
}

func simResult(pkg string, outcomes map[string]bool) domain.SimulateResult {
	r := domain.SimulateResult{Passed: true}
	for name, pass := range outcomes {
		r.Tests = append(r.Tests, domain.TestResult{Name: name, Package: pkg, Passed: pass, Output: "got 1, want 2"})
		if !pass {
			r.Passed, r.ExitCode = false, 1
		}
		if !pass && !hasSubtest(outcomes, name) { // leaves only, as the service reports
			r.Diagnostics = append(r.Diagnostics, domain.Diagnostic{Severity: domain.SeverityBlocking,
				Category: domain.CategoryTestFailure, Message: name + " failed:\ngot 1, want 2"})
		}
	}
	return r
}

func hasSubtest(outcomes map[string]bool, name string) bool {
	for n := range outcomes {
		if strings.HasPrefix(n, name+"/") {
			return true
		}
	}
	return false
}

func TestJudgeTests(t *testing.T) {
	t.Parallel()
	const pkg = "example.com/m"
	buildErr := domain.SimulateResult{ExitCode: 1, Diagnostics: []domain.Diagnostic{{Severity: domain.SeverityBlocking,
		Category: domain.CategoryTypeError, Message: "undefined: x"}}}
	added := codegen.ChangeTests{Changed: []testverdict.Decl{{Dir: ".", Name: "TestNew"}}, Required: []testverdict.Decl{{Dir: ".", Name: "TestNew"}}}
	tests := []struct {
		name        string
		head        domain.SimulateResult
		service     []domain.SimulateResult // base, then re-run
		change      codegen.ChangeTests
		pass        bool
		newFailures []string
		notes       string
		calls       int
		filter      string
	}{
		{"flaky: unchanged, passed at base, fails, then passes alone", simResult(pkg, map[string]bool{"TestFlaky": false, "TestOK": true}),
			[]domain.SimulateResult{simResult(pkg, map[string]bool{"TestFlaky": true}), simResult(pkg, map[string]bool{"TestFlaky": true})}, codegen.ChangeTests{},
			true, nil, "flaky tests excused (failed on the full run, passed when re-run alone; eligible because each ran and passed on the base tree and no file the change wrote declares it): example.com/m.TestFlaky", 2, "^(TestFlaky)$"},
		{"pre-existing: fails at base, no re-run", simResult(pkg, map[string]bool{"TestOld": false, "TestOK": true}),
			[]domain.SimulateResult{simResult(pkg, map[string]bool{"TestOld": false})}, codegen.ChangeTests{},
			true, nil, "pre-existing test failures", 1, ""},
		{"regression: a subtest absent at base is not re-run", simResult(pkg, map[string]bool{"TestNew/sub": false, "TestNew": false, "TestOld": false, "TestOK": true}),
			[]domain.SimulateResult{simResult(pkg, map[string]bool{"TestNew": true, "TestOld": false})}, codegen.ChangeTests{},
			false, []string{"TestNew/sub"}, "", 1, ""},
		{"a test the change wrote is never re-run", simResult(pkg, map[string]bool{"TestNew": false, "TestOK": true}),
			[]domain.SimulateResult{simResult(pkg, map[string]bool{"TestNew": true, "TestOK": true})}, added,
			false, []string{"TestNew"}, "", 1, ""},
		{"head passed: base still runs for the missing-test rule", simResult(pkg, map[string]bool{"TestOK": true}),
			[]domain.SimulateResult{simResult(pkg, map[string]bool{"TestOK": true, "TestGone": true})}, codegen.ChangeTests{},
			false, nil, "", 1, ""},
		{"build error: no base run", buildErr, nil, codegen.ChangeTests{}, false, nil, "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dom := &scriptedSimulate{results: tt.service}
			e := codegen.Executor{Deps: codegen.Deps{Deps: stagekit.Deps{Domain: dom}}}
			req := domain.Request{Repository: domain.Repository{Path: "/ws", Ref: "main"}}
			v, err := e.JudgeTests(context.Background(), &codegen.BaselineCache{}, codegen.TestRun{Base: req, Head: req, Params: domain.SimulateParams{Packages: []string{"."}}, Result: tt.head}, tt.change)
			require.NoError(t, err)
			assert.Equal(t, tt.pass, v.Passed, "problems: %q", v.Problems)
			var names []string
			for _, n := range v.Failing {
				names = append(names, n.Name)
			}
			assert.Equal(t, tt.newFailures, names)
			if tt.notes != "" {
				assert.Contains(t, strings.Join(codegen.VerdictNotes(v), "\n"), tt.notes)
			}
			require.Len(t, dom.params, tt.calls)
			if tt.filter != "" {
				assert.Equal(t, tt.filter, dom.params[len(dom.params)-1].Filter)
			}
		})
	}
}

// TestCodegenEmptyChangeIsFedBack: an answer that leaves every file as it
// is (the fix is already on the base) is rejected without a toolchain run,
// instead of committing nothing and meeting a 422 at the PR.
func TestCodegenEmptyChangeIsFedBack(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, dom := newRegressFixture(t)
	f.Answer(t, codegen.CodeOutput{Notes: "already fixed?", Edits: []codegen.CodeEdit{{Path: "calc.go", Old: addBug, New: addBug}}})
	f.Answer(t, codegen.CodeOutput{Notes: "already fixed?", Edits: []codegen.CodeEdit{{Path: "calc.go", Old: addBug, New: addBug}}})
	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	require.Len(t, esc.Attempts, 2)
	assert.Contains(t, esc.Attempts[0].Summary, "the answer changes nothing")
	assert.Zero(t, dom.Simulations.Load(), "no toolchain run for an empty change")
}
