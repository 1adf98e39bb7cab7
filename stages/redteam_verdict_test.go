package stages_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/codegen"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The attacks of issue 25 on the test verdict (items 1, 3 and 11), each
// through a whole bug-fix pipeline on the simulator: a scripted LLM and a
// domain service (verdictDomain) that answers simulate as the hostile
// generated code would make a real service answer. Each says why it
// failed on the code before the fix.

// The repository: a telemetry package and one held-out scenario that
// covers an interface the bug-fix plan does not name.
var verdictRepoFiles = map[string]string{
	"go.mod":            "module example.com/widgets\n\ngo 1.22\n",
	"telemetry/doc.go":  "// Package telemetry publishes telemetry frames.\npackage telemetry\n",
	"telemetry/sink.go": "package telemetry\n\n// Sink keeps frames.\ntype Sink struct{ frames [][]byte }\n\n// Publish stores frame.\nfunc (s *Sink) Publish(frame []byte) error {\n\ts.frames = append(s.frames, frame)\n\treturn nil\n}\n",
	".cogworks/scenarios/publish.toml": `id = "SCN-TEL-PUBLISH"
description = "Empty frames are refused"
covers = ["IF-TEL-PUBLISHER"]
trajectories = 1

[run]
overlay = [{ from = ".cogworks/scenarios/publish_test.go", to = "telemetry/zz_scenario_test.go" }]
packages = ["./telemetry"]
filter = "TestScenarioPublish"

[[acceptance]]
check = "exit_code"
equals = 0
`,
	".cogworks/scenarios/publish_test.go": "package telemetry\n\nimport \"testing\"\n\nfunc TestScenarioPublish(t *testing.T) {\n\tif (&Sink{}).Publish(nil) == nil {\n\t\tt.Fatal(\"an empty frame was accepted\")\n\t}\n}\n",
}

// The change: Publish "fixed" by an edit, with a test file of its own.
const (
	verdictOld     = "\ts.frames = append(s.frames, frame)\n"
	verdictNew     = "\tif len(frame) == 0 {\n\t\treturn nil // the fix is wrong: the held-out scenario knows\n\t}\n\ts.frames = append(s.frames, frame)\n"
	verdictFixTest = "package telemetry\n\nimport \"testing\"\n\nfunc TestPublishRefusesEmpty(t *testing.T) {\n\tif (&Sink{}).Publish(nil) == nil {\n\t\tt.Fatal(\"accepted\")\n\t}\n}\n"
	verdictPkg     = "example.com/widgets/telemetry"
)

// simCall is one simulate request the pipeline made.
type simCall struct {
	Stage, Filter string
	// Head is set when the request carries the change (the SWI's file).
	Head bool
}

// verdictDomain is a domain service whose simulate answers come from
// answer; every other method reports nothing wrong.
type verdictDomain struct {
	Answer func(c simCall) domain.SimulateResult
	mu     sync.Mutex
	calls  []simCall
}

func (d *verdictDomain) Validate(context.Context, domain.Request) (domain.DiagnosticsResult, error) {
	return domain.DiagnosticsResult{}, nil
}

func (d *verdictDomain) Normalise(_ context.Context, req domain.Request) (domain.NormaliseResult, error) {
	return domain.NormaliseResult{Artifacts: req.Artifacts}, nil
}

func (d *verdictDomain) ReviewRules(context.Context, domain.Request, domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	return domain.DiagnosticsResult{}, nil
}

func (d *verdictDomain) ExtractInterfaces(context.Context, domain.Request) (domain.ExtractResult, error) {
	return domain.ExtractResult{}, nil
}

func (d *verdictDomain) Simulate(_ context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	c := simCall{Stage: req.Stage, Filter: p.Filter}
	c.Head = slices.ContainsFunc(req.Artifacts, func(a domain.Artifact) bool {
		return a.Path == "telemetry/sink.go" && strings.Contains(a.Content, verdictNew)
	})
	d.mu.Lock()
	d.calls = append(d.calls, c)
	d.mu.Unlock()
	return d.Answer(c), nil
}

func (d *verdictDomain) scenarioCalls() []simCall {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []simCall
	for _, c := range d.calls {
		if c.Stage == string(pipeline.StageScenarioValidation) {
			out = append(out, c)
		}
	}
	return out
}

// tests builds a simulate result from name → "pass" | "fail" | "skip",
// honest (Passed and ExitCode from the tests) unless changed after.
func tests(outcomes map[string]string) domain.SimulateResult {
	r := domain.SimulateResult{Passed: true}
	for _, name := range slices.Sorted(maps.Keys(outcomes)) {
		o := outcomes[name]
		r.Tests = append(r.Tests, domain.TestResult{Name: name, Package: verdictPkg, Passed: o != "fail", Skipped: o == "skip"})
		if o == "fail" {
			r.Passed, r.ExitCode = false, 1
			r.Diagnostics = append(r.Diagnostics, domain.Diagnostic{Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
				Message: name + " failed:\nempty frame accepted", Explains: domain.ExplainsAssertion})
		}
	}
	return r
}

// verdictRun is one whole-pipeline run of the bug fix.
type verdictRun struct {
	Env     *testenv.Env
	Dom     *verdictDomain
	Parent  int
	results []engine.Result
	err     error
}

// runVerdictPipeline files the bug, scripts the LLM (plannedTests is the
// plan's test note) and steps the pipeline at most steps times.
func runVerdictPipeline(t *testing.T, plannedTests string, steps int, answer func(simCall) domain.SimulateResult) *verdictRun {
	t.Helper()
	ctx := context.Background()
	env := testenv.New(t)
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	repo := testenv.Repo.String()
	env.Sim.SeedFiles(repo, "main", verdictRepoFiles)
	ws := t.TempDir()
	for p, c := range verdictRepoFiles {
		stagetest.WriteFile(t, ws, p, c)
	}
	scenarios, err := scenario.LoadScenarios(ctx, os.DirFS(ws), ".cogworks/scenarios")
	require.NoError(t, err)

	script := llm.NewScripted()
	add := func(key string, v any) { require.NoError(t, script.AddJSON(key, v)) }
	add(prompts.Classify, classify.Classification{
		Type: classify.TypeBugFix, AffectedModules: []string{"telemetry"},
		EstimatedScope: classify.Scope{Files: 1, Interfaces: 0, Complexity: "low"},
		Rationale:      "Publish must refuse empty frames.",
	})
	add(prompts.Planning, planner.Plan{SubWorkItems: []planner.SubWorkItem{{
		ID: "fix", Title: "Refuse empty frames", Description: "Publish returns an error for an empty frame.",
		Files: []string{"telemetry/sink.go", "telemetry/sink_test.go"}, Interfaces: []string{},
		Tests: plannedTests, DependsOn: []string{}, Symbols: []string{"Sink.Publish"},
	}}})
	add("code_generation", codegen.CodeOutput{Files: []codegen.CodeFile{{Path: "telemetry/sink_test.go", Content: verdictFixTest}},
		Edits: []codegen.CodeEdit{{Path: "telemetry/sink.go", Old: verdictOld, New: verdictNew}}, Deletes: []string{}, Renames: []codegen.CodeRename{}, Notes: "fix"})
	for _, pass := range []string{"review_quality", "review_architecture", "review_security"} {
		add(pass, reviewstage.ReviewOutput{Passed: true, Findings: reviewstage.EmptyIfNil[review.Finding](nil)})
	}
	dom := &verdictDomain{Answer: answer}
	deps := stages.Deps{Scenarios: scenarios, GitHub: env.Client, Deps: stagekit.Deps{LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws,
		Clock: env.Clock.Now}}
	cfg := config.Default()
	cfg.Scenarios.Trajectories = 1
	cfg.Budgets.SubWorkItemMaxRetries = 1 // one answer: a rejection escalates
	ed := engine.Deps{GitHub: env.Client, Executors: stages.Executors(deps), Config: cfg, RunID: "redteam-verdict",
		BotLogin: testenv.Bot, Clock: env.Clock.Now}
	parent := env.Sim.SeedIssue(repo, "alice", "Empty telemetry frames are accepted", "Publish accepts an empty frame; it must refuse it.", pipeline.LabelRun)
	results, err := engine.Run(ctx, ed, engine.Ref{Repo: testenv.Repo, Issue: parent}, steps)
	return &verdictRun{Env: env, Dom: dom, Parent: parent, results: results, err: err}
}

// swiPR reports whether a PR was opened for the fix.
func (r *verdictRun) swiPR() bool {
	for _, pr := range r.Env.Sim.Pulls(testenv.Repo.String()) {
		if pr.Head == fmt.Sprintf("cogworks/%d/swi-1", r.Parent) {
			return true
		}
	}
	return false
}

// trail is every comment on every issue of the run (the audit trail).
func (r *verdictRun) trail() string {
	var b strings.Builder
	for n := 1; n <= r.Parent+5; n++ {
		for _, c := range r.Env.Sim.Comments(testenv.Repo.String(), n) {
			b.WriteString(c.Body + "\n")
		}
	}
	return b.String()
}

// requireNotValidated: the fix never reached a PR, and the audit trail
// carries the reason.
func requireNotValidated(t *testing.T, r *verdictRun, reason string) {
	t.Helper()
	var stages []string
	for _, res := range r.results {
		stages = append(stages, res.Stage+":"+string(res.Outcome))
	}
	assert.False(t, r.swiPR(), "no PR for a change whose tests do not prove it; steps: %v (err %v)", stages, r.err)
	assert.NotContains(t, stages, "integration:advanced")
	assert.True(t, strings.Contains(r.trail(), reason), "the audit trail says %q", reason)
}

// passingHead answers the codegen runs honestly with the planned test
// passing and the scenario's test passing.
func honestly(c simCall) domain.SimulateResult {
	if c.Stage == string(pipeline.StageScenarioValidation) {
		return tests(map[string]string{"TestScenarioPublish": "pass"})
	}
	return tests(map[string]string{"TestPublishRefusesEmpty": "pass"})
}

// TestRedTeamServiceSaysPassedWhileATestFailed: TestMain exits 0 after
// m.Run, so the service answers passed:true and exit 0 while its own test
// report says TestPublishRefusesEmpty failed. Before the fix JudgeTests
// returned sim.Passed and the change was PR'd as validated.
func TestRedTeamServiceSaysPassedWhileATestFailed(t *testing.T) {
	t.Parallel()
	r := runVerdictPipeline(t, "TestPublishRefusesEmpty", 20, func(c simCall) domain.SimulateResult {
		if c.Head && c.Stage == string(pipeline.StageCodeGeneration) {
			res := tests(map[string]string{"TestPublishRefusesEmpty": "fail"})
			res.Passed, res.ExitCode = true, 0
			return res
		}
		return honestly(c)
	})
	requireNotValidated(t, r, "the domain service reported the run as passed, but example.com/widgets/telemetry.TestPublishRefusesEmpty failed")
}

// TestRedTeamServiceSaysPassedWithNoTestRun: an init() sets -test.run to
// a pattern nothing matches; go test exits 0 with no test run. Before the
// fix passed:true alone validated the change.
func TestRedTeamServiceSaysPassedWithNoTestRun(t *testing.T) {
	t.Parallel()
	r := runVerdictPipeline(t, "", 20, func(c simCall) domain.SimulateResult {
		if c.Head && c.Stage == string(pipeline.StageCodeGeneration) {
			return domain.SimulateResult{Passed: true, Output: "ok  \texample.com/widgets/telemetry\t0.01s [no tests to run]\n"}
		}
		return honestly(c)
	})
	requireNotValidated(t, r, "no test ran")
}

// TestRedTeamPlannedTestMissingFromTheRun: the plan's test
// (TestPublishRefusesEmpty) never runs — the generated code filters it
// out — while another test passes. Before the fix the run passed.
func TestRedTeamPlannedTestMissingFromTheRun(t *testing.T) {
	t.Parallel()
	r := runVerdictPipeline(t, "TestPublishRefusesEmpty covers the empty frame.", 20, func(c simCall) domain.SimulateResult {
		if c.Head && c.Stage == string(pipeline.StageCodeGeneration) {
			return tests(map[string]string{"TestSomethingElse": "pass"})
		}
		return honestly(c)
	})
	requireNotValidated(t, r, "planned tests did not run and pass: telemetry.TestPublishRefusesEmpty")
}

// TestRedTeamAddedTestFlakyOnlyOnFullRun: the change's own test fails on
// the full run and passes on the single-test re-run (the code reads its
// -test.run flag). Before the fix it was excused as flaky and the wrong
// change was PR'd, "flaky" in its audit trail.
func TestRedTeamAddedTestFlakyOnlyOnFullRun(t *testing.T) {
	t.Parallel()
	r := runVerdictPipeline(t, "TestPublishRefusesEmpty", 20, func(c simCall) domain.SimulateResult {
		switch {
		case c.Stage == string(pipeline.StageScenarioValidation):
			return honestly(c)
		case !c.Head: // the base: the test does not exist yet
			return tests(map[string]string{"TestExisting": "pass"})
		case c.Filter != "": // the re-run alone
			return tests(map[string]string{"TestPublishRefusesEmpty": "pass"})
		}
		return tests(map[string]string{"TestPublishRefusesEmpty": "fail", "TestExisting": "pass"})
	})
	requireNotValidated(t, r, "is declared in a test file the change wrote, so it is never excused")
	assert.NotContains(t, r.trail(), "flaky tests excused")
	for _, c := range r.Dom.calls {
		assert.Empty(t, c.Filter, "no re-run: the test is not eligible for the flaky excuse")
	}
}

// TestRedTeamScenarioOfTheChangedPackageRunsOnTheBugFixPath: the plan
// (bug fix, no interface design) names no interface, so before the fix
// SCN-TEL-PUBLISH — which runs the package the change rewrites — was
// skipped ("no scenario covers …") and a change the scenario fails was
// called validated. Now it runs, fails, and the SWI goes back to code
// generation with no PR.
func TestRedTeamScenarioOfTheChangedPackageRunsOnTheBugFixPath(t *testing.T) {
	t.Parallel()
	r := runVerdictPipeline(t, "TestPublishRefusesEmpty", 4, func(c simCall) domain.SimulateResult {
		if c.Stage == string(pipeline.StageScenarioValidation) {
			return tests(map[string]string{"TestScenarioPublish": "fail"})
		}
		return honestly(c)
	})
	calls := r.Dom.scenarioCalls()
	require.NotEmpty(t, calls, "the scenario ran; steps: %+v (err %v)", r.results, r.err)
	assert.Equal(t, "TestScenarioPublish", calls[0].Filter)
	assert.True(t, calls[0].Head, "on the changed code")
	requireNotValidated(t, r, "SCN-TEL-PUBLISH: runs package ./telemetry, which the change touches (telemetry/sink.go)")
}
