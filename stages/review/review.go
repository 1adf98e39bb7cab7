package review

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// ReviewOutput is the structured output of each LLM review pass (schema
// "review"); it is review.Pass without the caller-set name.
type ReviewOutput struct {
	Passed   bool             `json:"passed"`
	Findings []review.Finding `json:"findings"`
}

// llmReviewPass names one LLM review pass and its prompt template.
type llmReviewPass struct {
	name, template string
}

// llmReviewPasses are the three LLM passes, run in this order after the
// token-free constraint pass (ASSERT-XVAL-003).
var llmReviewPasses = []llmReviewPass{
	{review.PassQuality, "review_quality"},
	{review.PassArchitecture, "review_architecture"},
	{review.PassSecurity, "review_security"},
}

// GitHub is what review uses: the SWI's issue and files, the spec
// and the summary comment.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.IssueReader
	stagekit.SpecReader
	idem.CommentAPI
}

// Executor runs the review stage for the current SWI: cross-domain
// constraint validation first, then three separate LLM passes, then the
// pure aggregation decides proceed, remediate or escalate (docs/spec.md §13).
type Executor struct {
	Deps   stagekit.Deps
	GitHub GitHub
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d stagekit.Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// Execute implements engine.StageExecutor.
func (e Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	snap := in.Snapshot
	rec, issue, files, err := stagekit.LoadCurrentSWI(ctx, e.GitHub, in.Repo, snap)
	if err != nil {
		return engine.StageResult{}, err
	}

	result, err := e.Passes(ctx, in, Subject{SWI: rec, Title: issue.Title, Body: issue.Body, Files: files})
	if err != nil {
		return engine.StageResult{}, err
	}
	cycles := rec.RemediationCycles
	action := review.NextAction(result, cycles, in.Config.Budgets.ReviewMaxRemediationCycles)
	switch action.Kind {
	case review.ActionEscalate:
		return engine.StageResult{}, &escalation.Error{
			Reason:   fmt.Sprintf("sub-work-item %s: blocking review findings remain after %d remediation cycles", rec.ID, cycles),
			Attempts: []escalation.Attempt{{N: cycles + 1, Summary: "review of sub-work-item " + rec.ID, Diagnostics: stagekit.FindingLines(result.Blocking)}},
		}
	case review.ActionRemediate:
		// Recorded whatever the summary's write does (a transient failure
		// retries the step with the cycle counted).
		decided := []pipeline.Change{pipeline.SetSWIRemediation{ID: rec.ID, Cycles: cycles + 1, Feedback: action.Feedback}}
		key := audit.Key(strconv.Itoa(snap.WorkItem), "review", rec.ID, "remediation-"+strconv.Itoa(cycles+1))
		if err := e.postSummary(ctx, in, key, rec, result); err != nil {
			return engine.StageResult{Changes: decided}, err
		}
		return engine.StageResult{
			Event:    pipeline.EventRemediate,
			Summary:  fmt.Sprintf("review of %s found %d blocking finding(s); remediation cycle %d", rec.ID, len(result.Blocking), cycles+1),
			Warnings: e.Deps.Warnings,
			Changes:  decided,
		}, nil
	}

	// The non-blocking findings are kept for integration (ASSERT-REVIEW-002);
	// the feedback they answered is consumed.
	decided := []pipeline.Change{pipeline.SetSWIFindings{ID: rec.ID, Findings: result.NonBlocking}}
	key := audit.Key(strconv.Itoa(snap.WorkItem), "review", rec.ID)
	if err := e.postSummary(ctx, in, key, rec, result); err != nil {
		return engine.StageResult{Changes: decided}, err
	}
	return engine.StageResult{
		Event:    pipeline.EventDone,
		Summary:  fmt.Sprintf("review of %s passed with %d non-blocking finding(s)", rec.ID, len(result.NonBlocking)),
		Warnings: e.Deps.Warnings,
		Changes:  decided,
	}, nil
}

// Subject is the change the review passes review.
type Subject struct {
	// SWI is the sub-work-item the change is for; the diffs compare its
	// files with its base branch.
	SWI pipeline.SWI
	// Title says what the change must do: the SWI issue's title (or the
	// plan item's when there is no issue).
	Title string
	// Body is the SWI issue's body (or the plan item's description).
	Body string
	// Files are the SWI's files as they would be committed.
	Files []domain.Artifact
}

// Passes runs the four review passes on the subject's files: the
// deterministic constraint pass and the LLM passes, whose tokens the
// snapshot's ledger records. A revision of a PR reviews its change this
// way, as for any attempt.
func (e Executor) Passes(ctx context.Context, in engine.StageInput, sub Subject) (review.Result, error) {
	snap, rec, files := in.Snapshot, sub.SWI, sub.Files
	passes := []review.Pass{}
	constraints, err := e.constraintPass(ctx, snap, rec, files)
	if err != nil {
		return review.Result{}, err
	}
	passes = append(passes, constraints)

	diffs, err := ReviewDiffs(ctx, e.GitHub, in.Repo, stagekit.SWIBase(snap, rec), files)
	if err != nil {
		return review.Result{}, err
	}
	vars, err := e.promptVars(ctx, in, sub.Title, sub.Body, diffs)
	if err != nil {
		return review.Result{}, err
	}
	gw := e.Deps.Gateway(in)
	for _, p := range llmReviewPasses {
		var out ReviewOutput
		_, err := gw.Structured(ctx, llm.Call{
			Stage: string(pipeline.StageReview), SWI: rec.ID, Template: p.template,
			Vars: vars, SchemaName: "review",
		}, &out)
		if err != nil {
			return review.Result{}, stagekit.Escalate(fmt.Errorf("review pass %s of %s: %w", p.name, rec.ID, err), nil)
		}
		passes = append(passes, review.Pass{Name: p.name, Passed: out.Passed, Findings: out.Findings})
	}
	return review.Aggregate(passes), nil
}

// constraintPass extracts the contract values from the SWI's files through
// the domain service and validates them against the interface registry.
// It is deterministic and spends no tokens (ASSERT-XVAL-003).
func (e Executor) constraintPass(ctx context.Context, snap *pipeline.Snapshot, rec pipeline.SWI, files []domain.Artifact) (review.Pass, error) {
	pass := review.Pass{Name: review.PassConstraints, Passed: true, Findings: []review.Finding{}}
	if e.Deps.Registry == nil || e.Deps.Domain == nil {
		return pass, nil
	}
	res, err := e.Deps.Domain.ExtractInterfaces(ctx, domain.Request{
		WorkItem:   strconv.Itoa(snap.WorkItem),
		Stage:      string(pipeline.StageReview),
		Repository: domain.Repository{Path: e.Deps.Workspace, Ref: rec.Branch},
		Artifacts:  files,
	})
	var derr *domain.Error
	if errors.As(err, &derr) && derr.Code == domain.CodeUnsupportedMethod && len(e.Deps.Registry.Interfaces) == 0 {
		// A service without extract_interfaces (the built-in command
		// service) in a repository with no interface contract: there is
		// nothing to bind values to. With a contract, its absence fails.
		return pass, nil
	}
	if err != nil {
		return review.Pass{}, fmt.Errorf("extract interfaces of sub-work-item %s: %w", rec.ID, err)
	}
	values := make([]xval.ExtractedValue, 0, len(res.Values))
	for _, v := range res.Values {
		values = append(values, xval.ExtractedValue{
			Interface: v.Interface, Parameter: v.Parameter, Value: v.Value,
			Artifact: stagekit.FirstSet(v.Location.File, v.Artifact), Line: v.Location.Line, Domain: stagekit.FirstSet(e.Deps.PrimaryDomain(), "software"),
		})
	}
	for _, f := range xval.Validate(e.Deps.Registry, values) {
		rf := ConstraintFinding(f)
		if rf.Severity == domain.SeverityBlocking {
			pass.Passed = false
		}
		pass.Findings = append(pass.Findings, rf)
	}
	return pass, nil
}

// ConstraintFinding maps a constraint-validation finding to a review
// finding that carries the interface, parameter, expected range, actual
// value and the owning and violating domains (ASSERT-XVAL-001/002).
func ConstraintFinding(f xval.Finding) review.Finding {
	var expl strings.Builder
	expl.WriteString(f.Message)
	if f.Expected != "" || f.Actual != "" {
		fmt.Fprintf(&expl, " (expected %s, actual %s)", orDash(f.Expected), orDash(f.Actual))
	}
	if f.OwnerDomain != "" || f.ViolatingDomain != "" {
		fmt.Fprintf(&expl, "; owning domain %s, violating domain %s", orDash(f.OwnerDomain), orDash(f.ViolatingDomain))
	}
	return review.Finding{
		File:        f.Artifact,
		Line:        f.Line,
		Severity:    f.Severity,
		Criterion:   strings.TrimSpace("interface " + f.InterfaceID + " " + f.Parameter),
		Explanation: expl.String(),
	}
}

// promptVars builds the variables the three review templates share.
func (e Executor) promptVars(ctx context.Context, in engine.StageInput, title, body string, files []stagekit.SWIFileVar) (map[string]any, error) {
	spec, err := stagekit.SpecOf(ctx, e.GitHub, in)
	if err != nil {
		return nil, err
	}
	safety := in.Snapshot.Classification != nil && in.Snapshot.Classification.SafetyAffecting
	vars := map[string]any{
		"SWI":            strings.TrimSpace(title + "\n\n" + body),
		"Files":          files,
		"Spec":           spec,
		"SafetyCritical": safety,
	}
	if c := stagekit.ForbiddenImportsText(in.Config.Constraints.ForbiddenImports); c != "" {
		vars["Constraints"] = c
	}
	return vars, nil
}

// ReviewDiffs is each of the SWI's files as a unified diff against the
// branch the SWI started from: reviewers judge the change, not the whole
// file it sits in.
func ReviewDiffs(ctx context.Context, gh stagekit.FileReader, repo github.Repo, base string, files []domain.Artifact) ([]stagekit.SWIFileVar, error) {
	out := make([]stagekit.SWIFileVar, 0, len(files))
	for _, f := range files {
		old, err := gh.GetFile(ctx, repo, f.Path, base)
		if err != nil && !errors.Is(err, github.ErrNotFound) {
			return nil, fmt.Errorf("read %s at %s in %s for the review diff: %w", f.Path, base, repo, err)
		}
		if d := stagekit.UnifiedDiff(f.Path, string(old), f.Content); d != "" {
			out = append(out, stagekit.SWIFileVar{Path: f.Path, Content: d})
		}
	}
	return out, nil
}

// postSummary upserts the review summary comment, with the executor's
// warnings, on the parent issue.
func (e Executor) postSummary(ctx context.Context, in engine.StageInput, key string, rec pipeline.SWI, res review.Result) error {
	body := audit.Format(audit.Comment{Key: key, Title: "Review of " + rec.ID, Body: ReviewSummary(rec, res, e.Deps.Warnings)})
	if _, _, err := idem.UpsertComment(ctx, e.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: in.Issue.Number, Key: key, Body: body, Listed: in.Comments}); err != nil {
		return fmt.Errorf("post review summary of %s: %w", rec.ID, err)
	}
	return nil
}

// ReviewSummary renders the aggregate as Markdown: the decision, one row
// per pass and every finding.
func ReviewSummary(rec pipeline.SWI, res review.Result, warnings []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Sub-work-item:** `%s` (#%d)\n**Decision:** %s\n\n", audit.Untrusted(rec.ID), rec.Issue, res.Decision)
	b.WriteString("| pass | passed | findings |\n|---|---|---:|\n")
	for _, p := range res.Passes {
		fmt.Fprintf(&b, "| %s | %t | %d |\n", p.Name, p.Passed, len(p.Findings))
	}
	if len(res.Blocking) > 0 {
		b.WriteString("\n**Blocking findings** (sent back to code generation):\n")
		for _, l := range stagekit.FindingLines(res.Blocking) {
			b.WriteString("- " + l + "\n")
		}
	}
	if len(res.NonBlocking) > 0 {
		b.WriteString("\n**Non-blocking findings** (posted on the PR):\n")
		for _, l := range stagekit.FindingLines(res.NonBlocking) {
			b.WriteString("- " + l + "\n")
		}
	}
	if len(warnings) > 0 {
		b.WriteString("\n**Warnings:**\n")
		for _, w := range warnings {
			b.WriteString("- ⚠️ " + stagekit.OneLine(w) + "\n")
		}
	}
	return b.String()
}

// EmptyIfNil returns s, or an empty slice when s is nil (so JSON shows [] not null).
func EmptyIfNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
