package codegen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// Defaults used when the configuration leaves a value at zero.
const (
	codegenDefaultRetries = 5
	codegenDefaultWindow  = 200000
	// codegenPromptOverhead reserves tokens for the template text around the data.
	codegenPromptOverhead = 2000
)

// GitHub is what code generation uses: the plan item, the code the
// SWI builds on, its status label and its branch.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.CodeReader
	stagekit.SWIStatusWriter
	idem.GitAPI
}

// Executor generates the code of the current sub-work-item
// (docs/spec.md §5 item 5): it picks the next SWI whose dependencies are
// completed, assembles its context (never any scenario), asks the LLM for
// the files and runs them through the domain service, feeding failures
// back, until an attempt passes or the SWI's retry budget is spent.
type Executor struct {
	Deps   Deps
	GitHub GitHub
}

// Deps are the shared ports and settings plus code generation's own.
// There is no field for the held-out scenarios: this stage cannot be
// handed them (TestOnlyScenarioStageNamesScenarios).
type Deps struct {
	stagekit.Deps
	// Baselines caches test runs of base trees across code generation
	// attempts; nil means one cache per step. Share one across runs only
	// while the workspace stays at one commit: its key names the
	// workspace's path and ref, not the commit checked out there.
	Baselines *BaselineCache
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// SWIRun is the state of one code generation step.
type SWIRun struct {
	in   engine.StageInput
	repo github.Repo
	n    int
	rec  pipeline.SWI
	Item planner.SubWorkItem
	src  stagekit.SWISources
	ref  string // default branch
	gw   *llm.Gateway
	// base is the tree the answer's edits apply to.
	Base BaseTree
	// baselines holds the test results of the tree without the change.
	baselines *BaselineCache
}

// Execute implements engine.StageExecutor.
func (e Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	if e.Deps.Domain == nil {
		return engine.StageResult{}, fmt.Errorf("code generation: validating generated code: %w", &domain.NoServiceError{})
	}
	r := SWIRun{in: in, repo: in.Repo, n: stagekit.WorkItem(in), baselines: e.Deps.Baselines}
	if r.baselines == nil {
		r.baselines = &BaselineCache{}
	}
	rec, started, done, err := e.current(ctx, in)
	if err != nil || done != nil {
		if done != nil {
			return *done, nil
		}
		return engine.StageResult{}, err
	}
	// A started SWI is recorded in progress whatever the attempts do.
	res, err := e.attempt(ctx, r, rec)
	res.Changes = append(started, res.Changes...)
	return res, err
}

// attempt generates, checks and commits the code of rec.
func (e Executor) attempt(ctx context.Context, r SWIRun, rec pipeline.SWI) (engine.StageResult, error) {
	r, cx, err := e.prepare(ctx, r, rec)
	if err != nil {
		return engine.StageResult{}, err
	}
	passed, passedAt, _, err := e.generate(ctx, r.in, r, cx, maxAttempts(r.in.Config))
	if err != nil {
		return engine.StageResult{}, err
	}
	return e.commit(ctx, r, passed, passedAt)
}

// maxAttempts is the attempts one code generation step may make.
func maxAttempts(c config.Config) int {
	if n := c.Budgets.SubWorkItemMaxRetries; n > 0 {
		return n
	}
	return codegenDefaultRetries
}

// prepare reads what an attempt on rec starts from: its plan item, the
// default branch, its sources, the tree its answer edits and the context.
func (e Executor) prepare(ctx context.Context, r SWIRun, rec pipeline.SWI) (SWIRun, codegenContext, error) {
	in, snap := r.in, r.in.Snapshot
	r.rec = rec
	var err error
	if r.Item, err = stagekit.PlanItem(ctx, e.GitHub, r.repo, rec); err != nil {
		return r, codegenContext{}, err
	}
	info, err := e.GitHub.GetRepo(ctx, r.repo)
	if err != nil {
		return r, codegenContext{}, fmt.Errorf("read repository %s: %w", r.repo, err)
	}
	r.ref = info.DefaultBranch
	if r.src, err = stagekit.LoadSWISources(ctx, e.GitHub, r.repo, stagekit.SWIOf{BotLogin: in.BotLogin, Snapshot: snap, Rec: rec, Item: r.Item}); err != nil {
		return r, codegenContext{}, err
	}
	if r.Base, err = e.baseTree(ctx, r); err != nil {
		return r, codegenContext{}, err
	}
	issue, err := e.issueText(ctx, in, r.n)
	if err != nil {
		return r, codegenContext{}, err
	}
	cx, err := e.ContextItems(ctx, in, r)
	if err != nil {
		return r, codegenContext{}, err
	}
	cx.Issue = issue
	r.gw = e.Deps.Gateway(in)
	return r, cx, nil
}

// generate asks for code until an answer passes check or maxAttempts were
// made, each prompt carrying the feedback of earlier invocations and of
// the previous attempt. It returns the passing changes and the attempt
// that made them.
func (e Executor) generate(ctx context.Context, in engine.StageInput, r SWIRun, cx codegenContext, maxAttempts int) (changeSet, int, string, error) {
	rec := r.rec
	earlier := rec.Feedback
	var passed changeSet
	var passedAt int
	var notes string
	exhausted := fmt.Sprintf("sub-work-item %s: generated code still failed after %d attempts", rec.ID, maxAttempts)
	limit := contextpack.NoLimit // lowered for good by a repack
	_, err := stagekit.AttemptLoop(ctx, maxAttempts, exhausted, func(ctx context.Context, k int, retry string) (*stagekit.Rejection, error) {
		feedback := strings.TrimSpace(strings.Join(stagekit.NonEmpty(earlier, retry), "\n\n"))
		var out CodeOutput
		// A prompt over the model's window is repacked smaller once,
		// then escalated with the figures.
		var err error
		limit, err = contextpack.WithRepack("sub-work-item "+rec.ID, limit, func(limit int) (int, error) {
			vars, packed, err := e.promptVars(in, r, cx, feedback, limit)
			if err != nil {
				return packed, err
			}
			out = CodeOutput{}
			_, err = r.gw.Structured(ctx, llm.Call{
				Stage: string(pipeline.StageCodeGeneration), SWI: rec.ID,
				Template: "code_generation", SchemaName: "code", Vars: vars,
			}, &out)
			return packed, err
		})
		var se *llm.SchemaError
		switch {
		case errors.As(err, &se):
			return attemptFailure{Summary: "the answer did not match the output schema: " + se.Error()}.rejection(k), nil
		case err != nil:
			return nil, fmt.Errorf("code generation for sub-work-item %s: %w", rec.ID, err)
		}
		files, fail, err := e.check(ctx, r, out)
		switch {
		case err != nil:
			return nil, err
		case fail != nil:
			return fail.rejection(k), nil
		}
		passed, passedAt, notes = files, k, out.Notes
		return nil, nil
	})
	return passed, passedAt, notes, err
}

// current returns the SWI to work on: the one the machine made current
// (pipeline.Snapshot.EnterSWI), with the change marking it in progress
// when it starts (started). With none current no SWI is ready: when every
// SWI is completed it returns a result moving the pipeline to complete,
// else it escalates the blocked plan.
func (e Executor) current(ctx context.Context, in engine.StageInput) (rec pipeline.SWI, started []pipeline.Change, done *engine.StageResult, err error) {
	snap := in.Snapshot
	if snap.CurrentSWI != "" {
		rec, err := stagekit.CurrentSWI(snap)
		if err != nil {
			return pipeline.SWI{}, nil, nil, fmt.Errorf("code generation: %w", err)
		}
		if rec.Status == pipeline.SWIPending {
			c, err := stagekit.SetSWIStatus(ctx, e.GitHub, in.Repo, snap, rec.ID, pipeline.SWIInProgress)
			if err != nil {
				return rec, nil, nil, err
			}
			started = append(started, c)
		}
		return rec, started, nil, nil
	}
	if len(snap.SubWorkItems) == 0 {
		return pipeline.SWI{}, nil, nil, errors.New("code generation: the plan has no sub-work-items")
	}
	var blocked []string
	for _, r := range snap.SubWorkItems {
		if r.Status != pipeline.SWICompleted {
			blocked = append(blocked, fmt.Sprintf("%s (%s)", r.ID, r.Status))
		}
	}
	if len(blocked) == 0 {
		return pipeline.SWI{}, nil, &engine.StageResult{Event: pipeline.EventAllDone,
			Summary: "Every sub-work-item is completed."}, nil
	}
	return pipeline.SWI{}, nil, nil, &escalation.Error{Reason: "no sub-work-item can start: waiting on " + strings.Join(blocked, ", ")}
}

// check applies one attempt's answer to the base tree and runs the result
// through the path rules and the domain service. It returns the changes, or
// why the attempt failed. Changes that do not apply cost no toolchain run.
func (e Executor) check(ctx context.Context, r SWIRun, out CodeOutput) (changeSet, *attemptFailure, error) {
	var cs changeSet
	if len(out.Edits)+len(out.Files)+len(out.Deletes)+len(out.Renames) == 0 {
		return cs, &attemptFailure{Summary: "the answer changed nothing: no edits, files, deletes or renames"}, nil
	}
	if fail := answerFlood(out, r.in.Config.Trust); fail != nil {
		return cs, fail, nil
	}
	// Paths are checked before any is read: an edit must not be able to
	// quote (through the nearest-lines feedback) a file it may not touch.
	if err := stagekit.CheckGeneratedPaths(answerPaths(out)); err != nil {
		var items []feedbackItem
		for _, line := range strings.Split(err.Error(), "\n") {
			items = append(items, feedbackItem{Severity: domain.SeverityBlocking, Category: "constraint_violation", Message: line})
		}
		return cs, &attemptFailure{Summary: "generated paths are not allowed", Items: items}, nil
	}
	cs, probs, err := ApplyAnswer(ctx, r.Base, out)
	if err != nil {
		return cs, nil, fmt.Errorf("apply the answer for %s: %w", r.rec.ID, err)
	}
	if len(probs) > 0 {
		return cs, EditFailure(probs), nil
	}
	if fail, err := emptyChange(ctx, r.start(), cs); fail != nil || err != nil {
		return cs, fail, err
	}
	files := cs.Files
	req := func(artifacts []domain.Artifact) domain.Request {
		return domain.Request{
			WorkItem: fmt.Sprint(r.n), Stage: string(pipeline.StageCodeGeneration),
			Repository: domain.Repository{Path: e.Deps.Workspace, Ref: r.ref}, Artifacts: artifacts,
		}
	}
	own := make([]domain.Artifact, 0, len(files))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		own = append(own, domain.Artifact{Path: p, Content: files[p]})
	}
	norm, err := e.Deps.Domain.Normalise(ctx, req(own))
	if err != nil {
		return cs, nil, fmt.Errorf("normalise generated code of %s: %w", r.rec.ID, err)
	}
	if items := diagnosticItems(norm.Diagnostics); len(items) > 0 {
		return cs, &attemptFailure{Summary: "normalisation found syntax errors", Items: items}, nil
	}
	for _, a := range norm.Artifacts {
		// Only files CogWorks created are formatted whole: an upstream file
		// keeps every byte the change did not touch, so the PR holds the fix
		// and nothing a newer gofmt would rewrite.
		if _, ok := files[a.Path]; ok && cs.Created[a.Path] {
			files[a.Path] = a.Content
		}
	}
	arts := r.src.Artifacts(files)
	for _, p := range cs.Deleted {
		arts = slices.DeleteFunc(arts, func(a domain.Artifact) bool { return a.Path == p })
		arts = append(arts, domain.Artifact{Path: p, Delete: true})
	}
	all := req(arts)
	val, err := e.Deps.Domain.Validate(ctx, all)
	if err != nil {
		return cs, nil, fmt.Errorf("validate generated code of %s: %w", r.rec.ID, err)
	}
	if items := diagnosticItems(val.Diagnostics); len(items) > 0 {
		return cs, &attemptFailure{Summary: "validation failed", Items: items}, nil
	}
	rules, err := e.Deps.Domain.ReviewRules(ctx, all, domain.ReviewRulesParams{})
	if err != nil {
		return cs, nil, fmt.Errorf("review rules on generated code of %s: %w", r.rec.ID, err)
	}
	if items := diagnosticItems(rules.Diagnostics); len(items) > 0 {
		return cs, &attemptFailure{Summary: "review rules reported blocking findings", Items: items}, nil
	}
	// Every changed file's service tests what it touched: the paths choose
	// the services (Extension API 1.3), the Go service keeps its packages.
	params := domain.SimulateParams{Packages: goPackages(files), Paths: changedPaths(files, cs.Deleted)}
	sim, err := e.Deps.Domain.Simulate(ctx, all, params)
	if err != nil {
		return cs, nil, fmt.Errorf("simulate generated code of %s: %w", r.rec.ID, err)
	}
	return e.judgeAttempt(ctx, r, cs, TestRun{Base: req(r.src.Artifacts(nil)), Head: all, Params: params, Result: sim})
}

// changedPaths lists the files a change writes or deletes, sorted.
func changedPaths(files map[string]string, deleted []string) []string {
	ps := append(slices.Collect(maps.Keys(files)), deleted...)
	slices.Sort(ps)
	return slices.Compact(ps)
}

// answerPaths lists every path an answer names, as the model wrote it.
func answerPaths(out CodeOutput) []string {
	var ps []string
	for _, e := range out.Edits {
		ps = append(ps, e.Path)
	}
	for _, f := range out.Files {
		ps = append(ps, f.Path)
	}
	ps = append(ps, out.Deletes...)
	for _, r := range out.Renames {
		ps = append(ps, r.From, r.To)
	}
	return ps
}

// interpret asks the failure analyst to explain a non-obvious simulation
// failure (ASSERT-CODE-003).
func (e Executor) interpret(ctx context.Context, r SWIRun, sim domain.SimulateResult, diffs []stagekit.SWIFileVar) (Interpretation, error) {
	var out Interpretation
	_, err := r.gw.Structured(ctx, llm.Call{
		Stage: string(pipeline.StageCodeGeneration), SWI: r.rec.ID,
		Template: "interpret_failure", SchemaName: "interpretation",
		Vars: map[string]any{"SWI": swiText(r.Item), "Failure": failureOutput(sim), "Files": diffs},
	}, &out)
	if err != nil {
		return out, fmt.Errorf("interpret test failure of %s: %w", r.rec.ID, err)
	}
	return out, nil
}

// presentOnBranch keeps the paths that exist on branch (or, before it
// exists, on the SWI's base branch): a re-run after a crash must not ask
// GitHub to delete a path the branch no longer has, which the Git trees API
// may refuse. It costs requests only when the change deletes files.
func (e Executor) presentOnBranch(ctx context.Context, r SWIRun, branch string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	tree, err := stagekit.BranchTree(ctx, e.GitHub, r.repo, branch)
	if errors.Is(err, github.ErrNotFound) {
		tree, err = stagekit.BranchTree(ctx, e.GitHub, r.repo, stagekit.SWIBase(r.in.Snapshot, r.rec))
	}
	if err != nil {
		return nil, fmt.Errorf("files to delete for %s: %w", r.rec.ID, err)
	}
	var out []string
	for _, p := range paths {
		if _, ok := tree[p]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// deletedNote is " (N deleted)" when the change deletes files.
func deletedNote(deleted []string) string {
	if len(deleted) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d deleted)", len(deleted))
}

// changeDiffs renders an attempt's changes as unified diffs against the
// tree it applied to: the analyst reads the change, not a 2,000-line file
// around it.
func changeDiffs(ctx context.Context, base BaseTree, cs changeSet) ([]stagekit.SWIFileVar, error) {
	var out []stagekit.SWIFileVar
	for _, p := range slices.Sorted(maps.Keys(cs.Files)) {
		old, _, err := base.read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("diff %s: %w", p, err)
		}
		if d := stagekit.UnifiedDiff(p, old, cs.Files[p]); d != "" {
			out = append(out, stagekit.SWIFileVar{Path: p, Content: d})
		}
	}
	for _, p := range cs.Deleted {
		old, _, err := base.read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("diff %s: %w", p, err)
		}
		out = append(out, stagekit.SWIFileVar{Path: p, Content: stagekit.UnifiedDiff(p, old, "")})
	}
	return out, nil
}

// goPackages lists "./dir" for every directory holding a generated Go file.
func goPackages(files map[string]string) []string {
	var pkgs []string
	for p := range files {
		if strings.HasSuffix(p, ".go") {
			pkgs = append(pkgs, "./"+path.Dir(p))
		}
	}
	slices.Sort(pkgs)
	return slices.Compact(pkgs)
}

// commit writes the passing files to the SWI's branch, stacked on its base
// branch; with several dependencies the other dependencies' files are
// committed too so the branch holds all the code it builds on.
func (e Executor) commit(ctx context.Context, r SWIRun, cs changeSet, attempt int) (engine.StageResult, error) {
	files := cs.Files
	snap := r.in.Snapshot
	branch := stagekit.SWIBranch(r.n, r.rec)
	tree := map[string]string{}
	maps.Copy(tree, r.src.Deps)
	maps.Copy(tree, files)
	title := r.Item.Title
	if title == "" {
		title = r.rec.ID
	}
	del, err := e.presentOnBranch(ctx, r, branch, cs.Deleted)
	if err != nil {
		return engine.StageResult{}, err
	}
	_, _, err = idem.WriteFiles(ctx, e.GitHub, r.repo, idem.Commit{
		Branch: branch, From: stagekit.SWIBase(snap, r.rec),
		Message: fmt.Sprintf("cogworks #%d: %s (%s)", r.n, title, r.rec.ID), Files: tree, Delete: del,
	})
	if err != nil {
		return engine.StageResult{}, fmt.Errorf("commit code of sub-work-item %s: %w", r.rec.ID, err)
	}
	rec := snap.SubWorkItem(r.rec.ID)
	if rec == nil {
		return engine.StageResult{}, fmt.Errorf("code generation: sub-work-item %q left the snapshot", r.rec.ID)
	}
	return engine.StageResult{
		Event: pipeline.EventDone,
		Summary: fmt.Sprintf("Sub-work-item %s: %d file(s)%s generated and validated on `%s` (attempt %d).", r.rec.ID, len(files), deletedNote(cs.Deleted), branch, attempt) +
			testNotes(cs.Notes),
		Changes: []pipeline.Change{pipeline.SetSWICommit{ID: rec.ID, Branch: branch, TestNotes: cs.Notes,
			Committed: committedAfter(rec.Committed, cs, files)}},
	}, nil
}

// committedAfter is the SWI's committed paths once cs is on its branch:
// the recorded ones without the deleted, with the written (sorted, unique).
func committedAfter(recorded []string, cs changeSet, written map[string]string) []string {
	kept := slices.DeleteFunc(slices.Clone(recorded), func(p string) bool { return slices.Contains(cs.Deleted, p) })
	return pipeline.CommittedPaths(kept, slices.Collect(maps.Keys(written)))
}

// answerFlood fails an answer past the per-sub-work-item caps on files
// and bytes ([trust] max_answer_files, max_answer_bytes) before any of it
// is checked, committed or opened as a PR: a "file flood" costs review
// time and hides what matters. Zero caps (a config built in code) fall
// back to the defaults.
func answerFlood(out CodeOutput, caps config.Trust) *attemptFailure {
	def := config.Default().Trust
	maxFiles, maxBytes := caps.MaxAnswerFiles, caps.MaxAnswerBytes
	if maxFiles <= 0 {
		maxFiles = def.MaxAnswerFiles
	}
	if maxBytes <= 0 {
		maxBytes = def.MaxAnswerBytes
	}
	total := 0
	for _, f := range out.Files {
		total += len(f.Path) + len(f.Content)
	}
	for _, ed := range out.Edits {
		total += len(ed.Path) + len(ed.Old) + len(ed.New)
	}
	files := len(answerPaths(out))
	var problems []string
	if files > maxFiles {
		problems = append(problems, fmt.Sprintf("the answer touches %d files; at most %d are allowed per sub-work-item (trust.max_answer_files)", files, maxFiles))
	}
	if total > maxBytes {
		problems = append(problems, fmt.Sprintf("the answer has %d bytes; at most %d are allowed per sub-work-item (trust.max_answer_bytes)", total, maxBytes))
	}
	if len(problems) == 0 {
		return nil
	}
	items := make([]feedbackItem, 0, len(problems))
	for _, p := range problems {
		items = append(items, feedbackItem{Severity: domain.SeverityBlocking, Category: "constraint_violation", Message: p})
	}
	return &attemptFailure{Summary: "file flood: " + strings.Join(problems, "; "), Items: items}
}
