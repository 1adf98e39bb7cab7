package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// Defaults used when the [scenarios] configuration leaves a value at zero.
const (
	defaultScenarioTrajectories = 10
	defaultScenarioThreshold    = 0.95
)

// domainSimulator runs scenario trajectories through the domain service's
// simulate: the SWI's code (its interface files, dependency outputs and
// generated files) plus the scenario's overlay, on a fresh copy of the
// workspace for every call (the service copies the workspace per request).
type domainSimulator struct {
	Dom       stagekit.Domain
	workspace string
	ref       string
	workItem  string
	// base are the SWI's files; overlay files override them.
	Base map[string]string
}

// Simulate implements scenario.Simulator.
func (s domainSimulator) Simulate(ctx context.Context, run scenario.Run) (scenario.Observation, error) {
	files := maps.Clone(s.Base)
	if files == nil {
		files = map[string]string{}
	}
	maps.Copy(files, run.Overlay)
	artifacts := make([]domain.Artifact, 0, len(files))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		artifacts = append(artifacts, domain.Artifact{Path: p, Content: files[p]})
	}
	res, err := s.Dom.Simulate(ctx, domain.Request{
		WorkItem: s.workItem, Stage: string(pipeline.StageScenarioValidation),
		Repository: domain.Repository{Path: s.workspace, Ref: s.ref}, Artifacts: artifacts,
	}, domain.SimulateParams{Packages: run.Packages, Paths: slices.Sorted(maps.Keys(run.Overlay)), Filter: run.Filter})
	if err != nil {
		return scenario.Observation{}, err
	}
	obs := observation(res)
	obs.Problems = scenarioProblems(res, run)
	obs.Fields["passed"] = len(obs.Problems) == 0
	return obs, nil
}

// observation maps a simulate result to what scenario criteria inspect.
// Fields exposes passed, exit_code, tests_passed, tests_skipped and
// tests_failed to output.<field> checks; a skipped test is not counted
// as passed. The caller replaces passed with CogWorks's own verdict.
func observation(res domain.SimulateResult) scenario.Observation {
	obs := scenario.Observation{
		ExitCode: res.ExitCode,
		Output:   res.Output,
		Duration: time.Duration(res.DurationMS) * time.Millisecond,
	}
	passed, skipped, failed := 0, 0, 0
	for _, t := range res.Tests {
		obs.Tests = append(obs.Tests, scenario.TestResult{Name: t.Name, Passed: t.Passed, Skipped: t.Skipped, Output: t.Output})
		switch {
		case t.Skipped:
			skipped++
		case t.Passed:
			passed++
		default:
			failed++
		}
	}
	obs.Fields = map[string]any{
		"passed": res.Passed, "exit_code": float64(res.ExitCode),
		"tests_passed": float64(passed), "tests_skipped": float64(skipped), "tests_failed": float64(failed),
	}
	return obs
}

// Judgement is the output of the llm_judge prompt.
type Judgement struct {
	Passed    bool    `json:"passed"`
	Score     float64 `json:"score" jsonschema:"minimum=0,maximum=1"`
	Reasoning string  `json:"reasoning"`
}

// llmJudge implements scenario.Judge with the llm_judge prompt.
type llmJudge struct {
	gw  *llm.Gateway
	SWI string
}

// maxJudgedOutput bounds the observation output shown to the judge (tail).
const maxJudgedOutput = 16 << 10

// Judge implements scenario.Judge.
func (j llmJudge) Judge(ctx context.Context, criteria string, obs scenario.Observation) (bool, float64, string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "exit code: %d\nduration: %s\n", obs.ExitCode, obs.Duration)
	for _, t := range obs.Tests {
		verdict := "FAIL"
		switch {
		case t.Skipped:
			verdict = "SKIP"
		case t.Passed:
			verdict = "PASS"
		}
		fmt.Fprintf(&b, "test %s: %s\n", t.Name, verdict)
	}
	for _, p := range obs.Problems {
		fmt.Fprintf(&b, "CogWorks's test verdict: %s\n", p)
	}
	out := obs.Output
	if len(out) > maxJudgedOutput {
		out = "…(truncated)\n" + out[len(out)-maxJudgedOutput:]
	}
	fmt.Fprintf(&b, "\noutput:\n%s", out)
	var res Judgement
	_, err := j.gw.Structured(ctx, llm.Call{
		Stage: string(pipeline.StageScenarioValidation), SWI: j.SWI,
		Template: "llm_judge", SchemaName: "judgement",
		Vars: map[string]any{"Criteria": criteria, "Observation": b.String()},
	}, &res)
	if err != nil {
		return false, 0, "", err
	}
	return res.Passed, res.Score, res.Reasoning, nil
}

// GitHub is what scenario validation uses: the plan item, the code
// under test and the results comment.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.CodeReader
	stagekit.IssueReader
	idem.CommentAPI
}

// Executor validates the current SWI against the held-out
// scenarios covering its interfaces (docs/spec.md §12). A pass moves on to review;
// a failure sends the scenario feedback (never the scenario source) back
// to code generation, up to the remediation budget.
type Executor struct {
	Deps   Deps
	GitHub GitHub
}

// Deps are the shared ports and settings plus what only scenario
// validation may see: the held-out scenarios, loaded from the workspace,
// and the digital twins they run against. No other stage's deps type has
// a field for them (TestOnlyScenarioStageNamesScenarios).
type Deps struct {
	stagekit.Deps
	Scenarios []scenario.Scenario
	Twins     scenario.Twins
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// Execute implements engine.StageExecutor: validate, record the trust
// history, post the audit comment, then decide (pass, skip, remediate or
// escalate).
func (e Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	snap := in.Snapshot
	rec, err := stagekit.CurrentSWI(snap)
	if err != nil {
		return engine.StageResult{}, fmt.Errorf("scenario validation: %w", err)
	}
	res, err := e.validate(ctx, in, rec)
	if err != nil {
		return engine.StageResult{}, err
	}
	var decided []pipeline.Change
	if !res.Skipped {
		// The trust history is recorded whatever follows.
		decided = append(decided, pipeline.SetScenarioHistory{History: res.History})
	}
	if err := e.postResults(ctx, in, rec, res); err != nil {
		return engine.StageResult{Changes: decided}, err
	}
	out, err := decideScenarios(in, rec, res)
	out.Changes = append(decided, out.Changes...)
	return out, err
}

// scenarioConfig is the [scenarios] configuration with defaults applied and
// the trust history from the snapshot.
func scenarioConfig(in engine.StageInput) scenario.Config {
	cfg := scenario.Config{Threshold: in.Config.Scenarios.Threshold, DefaultTrajectories: in.Config.Scenarios.Trajectories}
	if cfg.Threshold == 0 {
		cfg.Threshold = defaultScenarioThreshold
	}
	if cfg.DefaultTrajectories <= 0 {
		cfg.DefaultTrajectories = defaultScenarioTrajectories
	}
	cfg.History = in.Snapshot.ScenarioHistory
	return cfg
}

// validate selects the scenarios exercising what the SWI's change
// touches (scenarioChange) and runs them through the domain simulator and
// the LLM judge. A budget refusal is an escalation.
func (e Executor) validate(ctx context.Context, in engine.StageInput, rec pipeline.SWI) (scenario.Result, error) {
	item, err := stagekit.PlanItem(ctx, e.GitHub, in.Repo, rec)
	if err != nil {
		return scenario.Result{}, err
	}
	var own map[string]string
	if len(e.Deps.Scenarios) > 0 { // nothing to choose from: no reads
		if own, err = stagekit.DepFiles(ctx, e.GitHub, in.Repo, in.Snapshot, rec); err != nil {
			return scenario.Result{}, err
		}
	}
	sel, err := e.selectScenarios(ctx, in, rec, own, item.Interfaces)
	if err != nil {
		return scenario.Result{}, err
	}
	selected := sel.Selected
	var sim scenario.Simulator
	if len(selected) > 0 {
		if e.Deps.Domain == nil {
			return scenario.Result{}, fmt.Errorf("scenario validation: running scenarios: %w", &domain.NoServiceError{})
		}
		if sim, err = e.simulator(ctx, in, rec, item, own); err != nil {
			return scenario.Result{}, err
		}
	}
	judge := llmJudge{gw: e.Deps.Gateway(in), SWI: rec.ID}
	res, err := scenario.Validate(ctx, scenarioConfig(in), selected, scenario.Harness{Sim: sim, Twins: e.Deps.Twins, Judge: judge})
	if errors.As(err, new(*llm.BudgetExceededError)) {
		return scenario.Result{}, &escalation.Error{Reason: stagekit.ReasonBudget}
	}
	if err != nil {
		return scenario.Result{}, fmt.Errorf("scenario validation of %s: %w", rec.ID, err)
	}
	res.Ran, res.NotApplied = sel.Ran, sel.NotApplied
	return res, nil
}

// postResults posts the scenario audit comment on the work item.
func (e Executor) postResults(ctx context.Context, in engine.StageInput, rec pipeline.SWI, res scenario.Result) error {
	n := stagekit.WorkItem(in)
	key := audit.Key(fmt.Sprint(n), "scenarios", rec.ID)
	body := audit.Format(audit.Comment{Key: key, Title: "Scenario validation — " + rec.ID, Body: audit.Cap(res.AuditMarkdown())})
	_, _, err := idem.UpsertComment(ctx, e.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: n, Key: key, Body: body, Listed: in.Comments})
	return err
}

// decideScenarios turns the result into the stage's outcome: skipped or
// passed moves on; a failure goes back to code generation with the
// scenario feedback (never the scenario source) until the remediation
// budget is spent, then escalates.
func decideScenarios(in engine.StageInput, rec pipeline.SWI, res scenario.Result) (engine.StageResult, error) {
	which := ""
	if s := res.SelectionSummary(); s != "" {
		which = " " + s
	}
	switch {
	case res.Skipped:
		return engine.StageResult{Event: pipeline.EventDone, Warnings: res.Warnings,
			Summary: fmt.Sprintf("Scenario validation of %s skipped: %s.%s", rec.ID, res.SkipReason, which)}, nil
	case res.Passed:
		return engine.StageResult{Event: pipeline.EventDone, Warnings: res.Warnings,
			Summary: fmt.Sprintf("Scenario validation of %s passed: overall %.2f ≥ %.2f over %d trajectories.%s", rec.ID, res.Overall, res.Threshold, res.Total, which)}, nil
	}
	// The machine's remediate guard enforces the same limit.
	limit := pipeline.RemediationLimit(in.Config.Budgets.ReviewMaxRemediationCycles)
	if rec.RemediationCycles >= limit {
		return engine.StageResult{}, &escalation.Error{
			Reason: fmt.Sprintf("sub-work-item %s still fails scenario validation after %d remediation cycles", rec.ID, limit),
			Attempts: []escalation.Attempt{{N: rec.RemediationCycles + 1, Summary: fmt.Sprintf("overall satisfaction %.2f, threshold %.2f", res.Overall, res.Threshold),
				Diagnostics: stagekit.NonEmpty(strings.Split(res.Feedback(), "\n")...)}},
		}
	}
	cycles := rec.RemediationCycles + 1
	return engine.StageResult{Event: pipeline.EventRemediate, Warnings: res.Warnings,
		Summary: fmt.Sprintf("Scenario validation of %s failed (overall %.2f, threshold %.2f); back to code generation (remediation %d of %d).%s",
			rec.ID, res.Overall, res.Threshold, cycles, limit, which),
		Changes: []pipeline.Change{pipeline.SetSWIRemediation{ID: rec.ID, Cycles: cycles, Feedback: res.Feedback()}}}, nil
}

// simulator reads the SWI's code from GitHub for the domain simulator.
func (e Executor) simulator(ctx context.Context, in engine.StageInput, rec pipeline.SWI, item planner.SubWorkItem, own map[string]string) (scenario.Simulator, error) {
	snap := in.Snapshot
	info, err := e.GitHub.GetRepo(ctx, in.Repo)
	if err != nil {
		return nil, fmt.Errorf("read repository %s: %w", in.Repo, err)
	}
	src, err := stagekit.LoadSWISources(ctx, e.GitHub, in.Repo, stagekit.SWIOf{BotLogin: in.BotLogin, Snapshot: snap, Rec: rec, Item: item})
	if err != nil {
		return nil, err
	}
	base := map[string]string{}
	for _, a := range src.Artifacts(own) {
		base[a.Path] = a.Content
	}
	return domainSimulator{Dom: e.Deps.Domain, workspace: e.Deps.Workspace, ref: info.DefaultBranch, workItem: fmt.Sprint(stagekit.WorkItem(in)), Base: base}, nil
}
