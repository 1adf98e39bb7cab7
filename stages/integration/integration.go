package integration

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
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// GitHub is what integration uses: the SWI's issue and files,
// its PR with inline findings, its status label and the summary comment.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.SWIStatusWriter
	stagekit.FileReader
	stagekit.BranchSHAReader
	idem.PullAPI
	idem.CommentAPI
	stagekit.ReviewAPI
}

// Executor opens the current SWI's PR, posts its non-blocking
// review findings as one COMMENT review, marks the SWI completed and moves
// on to the next SWI or completes the work item (docs/spec.md §13). It never
// merges, approves, requests changes or closes: the GitHub adapter's
// capability manifest denies those (ASSERT-INT-003).
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
	inline, other := placeFindings(rec.Findings, files)

	branch := stagekit.BranchOf(snap, rec)
	base := stagekit.SWIBase(snap, rec)
	safety := snap.Classification != nil && snap.Classification.SafetyAffecting
	// The SWI issue's title already carries "[#N k/m]"; the PR names the
	// parent and the plan item's own title.
	title := issue.Title
	if rec.Title != "" {
		title = rec.Title
	}
	pr, created, err := idem.FindOrCreatePull(ctx, e.GitHub, in.Repo, in.BotLogin, github.NewPull{
		Title: fmt.Sprintf("[#%d] %s", snap.WorkItem, stagekit.OneLine(title)),
		Body: PRBody(PRBodyInput{
			WorkItem: snap.WorkItem, SWI: rec, Artifacts: snap.Artifacts, Files: files,
			SafetyCritical: safety, Warnings: e.Deps.Warnings, Other: other,
		}),
		Head: branch, Base: base,
	})
	if err != nil {
		return engine.StageResult{}, e.emptyBranch(ctx, in.Repo, fmt.Errorf("open PR of sub-work-item %s: %w", rec.ID, err), rec.ID, idem.Branches{Head: branch, Base: base})
	}
	if err := e.postInlineReview(ctx, in, inlineReview{SWI: rec, PR: pr, Created: created, Branch: branch, Findings: inline}); err != nil {
		return engine.StageResult{}, err
	}

	// The PR is recorded whatever follows; the machine leaves the SWI
	// (CurrentSWI) on next_swi or all_done.
	decided := []pipeline.Change{pipeline.SetSWIPull{ID: rec.ID, Branch: branch, PR: pr.Number}}
	// The issue read at the start of this step gives the labels to keep.
	done, err := stagekit.SetSWIStatusOf(ctx, e.GitHub, in.Repo, snap, pipeline.SetSWIStatus{ID: rec.ID, Status: pipeline.SWICompleted}, &issue)
	if err != nil {
		return engine.StageResult{Changes: decided}, err
	}
	decided = append(decided, done)
	summary := fmt.Sprintf("sub-work-item %s: PR #%d opened", rec.ID, pr.Number)
	if remainingSWIs(snap, rec.ID) > 0 {
		return engine.StageResult{Event: pipeline.EventNextSWI, Summary: summary, Warnings: e.Deps.Warnings, Changes: decided}, nil
	}
	key := audit.Key(strconv.Itoa(snap.WorkItem), "cost")
	body := audit.Format(audit.Comment{Key: key, Title: "Cost report", Body: "Every sub-work-item has its PR; CogWorks never merges them — humans do, bottom-up.\n\n" +
		audit.CostTable(snap.Ledger, snap.SubWorkItems, in.Config.Budgets.PipelineMaxTokens, in.Config.Budgets.PipelineMaxCostUSD)})
	if _, _, err := idem.UpsertComment(ctx, e.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: in.Issue.Number, Key: key, Body: body, Listed: in.Comments}); err != nil {
		return engine.StageResult{Changes: decided}, fmt.Errorf("post cost report on #%d: %w", in.Issue.Number, err)
	}
	return engine.StageResult{Event: pipeline.EventAllDone, Summary: summary + "; every sub-work-item is integrated", Warnings: e.Deps.Warnings, Changes: decided}, nil
}

// emptyBranch settles GitHub's 422 "No commits between" on opening the
// sub-work-item's PR. Asking GitHub is free on the common path, where
// reading both branch heads first would cost two requests every time; on
// the 422 they are read. A branch at its base's commit holds nothing the
// base lacks (the change is already on the base, e.g. in the interface
// PR): an escalation with that reason. A branch at another commit was
// most likely pushed moments before and GitHub's comparison had not seen
// it yet (a race real integrations meet): a transient failure, so the next
// invocation opens the PR, bounded by stage_max_retries.
func (e Executor) emptyBranch(ctx context.Context, repo github.Repo, err error, id string, b idem.Branches) error {
	branch, base := b.Head, b.Base
	if !errors.Is(err, github.ErrUnprocessable) || !strings.Contains(err.Error(), "No commits between") {
		return err
	}
	head, herr := e.GitHub.GetBranchSHA(ctx, repo, branch)
	baseSHA, berr := e.GitHub.GetBranchSHA(ctx, repo, base)
	if herr == nil && berr == nil && head != baseSHA {
		return &engine.TransientError{Err: fmt.Errorf(
			"sub-work-item %s: GitHub found no commits between %s and %s although %s is at %s and %s at %s (a push GitHub had not yet seen): %w",
			id, base, branch, branch, shortSHA(head), base, shortSHA(baseSHA), err)}
	}
	return &escalation.Error{Reason: fmt.Sprintf(
		"sub-work-item %s: branch %s has no change against %s, so there is no PR to open (the change is already on %s)",
		id, branch, base, base)}
}

// inlineReview is what postInlineReview posts: one SWI's non-blocking
// findings on its PR.
type inlineReview struct {
	// SWI is the sub-work-item the findings came from; its ID keys the
	// review's marker.
	SWI pipeline.SWI
	// PR is the SWI's PR; its HeadSHA anchors the comments when set.
	PR github.PullRequest
	// Created reports that PR was opened in this step, so no review of
	// the bot's can be on it yet and none is searched for.
	Created bool
	// Branch is the PR's head branch, read only when PR.HeadSHA is empty.
	Branch string
	// Findings are the non-blocking findings to post; none posts nothing.
	Findings []review.Finding
}

// postInlineReview posts r's findings as one COMMENT review
// (ASSERT-INT-002), unless a CogWorks review carrying this SWI's marker is
// already on the PR. GitHub anchors an inline comment only on a line of
// the PR's diff (else 422 "Pull request review thread line must be part
// of the diff"), so findings on other lines are listed, with file and
// line, in the review's body. The repository, the bot's login and the work
// item come from in.
func (e Executor) postInlineReview(ctx context.Context, in engine.StageInput, r inlineReview) error {
	if len(r.Findings) == 0 {
		return nil
	}
	repo, rec, pr, inline := in.Repo, r.SWI, r.PR, r.Findings
	key := audit.Key(strconv.Itoa(in.Snapshot.WorkItem), "review", rec.ID, "inline")
	marker := audit.Marker(key)
	if !r.Created {
		existing, err := e.GitHub.ListReviews(ctx, repo, pr.Number)
		if err != nil {
			return fmt.Errorf("list reviews of PR #%d: %w", pr.Number, err)
		}
		for _, rv := range existing {
			// Anyone can review a PR and copy the marker; only the bot's own
			// review suppresses a second one.
			if rv.User == in.BotLogin && strings.Contains(rv.Body, marker) {
				return nil
			}
		}
	}
	files, err := e.GitHub.ListPullFiles(ctx, repo, pr.Number)
	if err != nil {
		return fmt.Errorf("list files of PR #%d: %w", pr.Number, err)
	}
	inDiff, outside := splitByDiff(inline, files)
	// The PR answer carries its head commit; the branch is read only when
	// it does not (a PR listed by an older GitHub, say).
	head := pr.HeadSHA
	if head == "" {
		h, err := e.GitHub.GetBranchSHA(ctx, repo, r.Branch)
		if err != nil {
			return fmt.Errorf("read head of %s: %w", r.Branch, err)
		}
		head = h
	}
	comments := make([]github.InlineComment, 0, len(inDiff))
	for _, f := range inDiff {
		comments = append(comments, github.InlineComment{Path: f.File, Line: f.Line, Body: InlineBody(f, marker)})
	}
	body := fmt.Sprintf("%d non-blocking finding(s) from the review of `%s`. They did not block this PR; a human decides.", len(inline), rec.ID)
	if len(outside) > 0 {
		body += "\n\nOn lines outside this PR's diff (GitHub cannot anchor them inline):\n"
		for _, l := range stagekit.FindingLines(outside) {
			body += "\n- " + l
		}
	}
	_, err = e.GitHub.CreateReview(ctx, repo, pr.Number, github.NewReview{
		Event:    github.ReviewComment,
		Body:     audit.Redact(audit.Format(audit.Comment{Key: key, Title: "Review findings", Body: body})),
		CommitID: head,
		Comments: comments,
	})
	if err != nil {
		return fmt.Errorf("post review findings on PR #%d: %w", pr.Number, err)
	}
	return nil
}

// splitByDiff separates findings on lines of the PR's diff from the rest.
func splitByDiff(fs []review.Finding, files []github.PullFile) (inDiff, outside []review.Finding) {
	lines := map[string]map[int]bool{}
	for _, f := range files {
		lines[f.Path] = f.Lines
	}
	for _, f := range fs {
		if lines[f.File][f.Line] {
			inDiff = append(inDiff, f)
			continue
		}
		outside = append(outside, f)
	}
	return inDiff, outside
}

// InlineBody renders one finding as an inline review comment.
func InlineBody(f review.Finding, marker string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**", stagekit.OneLine(string(f.Severity)))
	if f.Criterion != "" {
		fmt.Fprintf(&b, " · %s", stagekit.OneLine(f.Criterion))
	}
	fmt.Fprintf(&b, "\n\n%s\n\n%s", audit.Untrusted(strings.TrimSpace(f.Explanation)), marker)
	return audit.Redact(b.String())
}

// placeFindings splits findings into those GitHub can anchor inline (a
// file of the PR and a line inside it) and the rest, which go in the PR
// body.
func placeFindings(fs []review.Finding, files []domain.Artifact) (inline, other []review.Finding) {
	lines := map[string]int{}
	for _, f := range files {
		lines[f.Path] = strings.Count(f.Content, "\n") + 1
	}
	for _, f := range fs {
		if n, ok := lines[f.File]; ok && f.Line >= 1 && f.Line <= n {
			inline = append(inline, f)
			continue
		}
		other = append(other, f)
	}
	return inline, other
}

// remainingSWIs counts SWIs not yet completed besides completed, the one
// this step completes.
func remainingSWIs(snap *pipeline.Snapshot, completed string) int {
	n := 0
	for _, s := range snap.SubWorkItems {
		if s.Status != pipeline.SWICompleted && s.ID != completed {
			n++
		}
	}
	return n
}

// PRBodyInput is what a SWI PR's description is built from.
type PRBodyInput struct {
	WorkItem       int
	SWI            pipeline.SWI
	Artifacts      pipeline.Artifacts
	Files          []domain.Artifact
	SafetyCritical bool
	Warnings       []string
	Other          []review.Finding
}

// PRBody renders a SWI PR's description: the references to the SWI issue,
// the parent, the spec PR and the interface PR (ASSERT-INT-001), a
// safety-critical notice (ASSERT-REVIEW-006), domain-availability warnings
// (ASSERT-EXT-002), the tests code generation ran and the failures it
// excused (failing at base, flaky, with why each was eligible) and findings that cannot be anchored inline. It does
// not say "Closes": CogWorks never closes issues.
func PRBody(in PRBodyInput) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Implements #%d (sub-work-item `%s`) of work item #%d.\n\n", in.SWI.Issue, audit.Untrusted(in.SWI.ID), in.WorkItem)
	b.WriteString("| reference | |\n|---|---|\n")
	fmt.Fprintf(&b, "| parent work item | #%d |\n", in.WorkItem)
	fmt.Fprintf(&b, "| sub-work-item | #%d |\n", in.SWI.Issue)
	fmt.Fprintf(&b, "| specification PR | %s |\n", prRef(in.Artifacts.SpecPR))
	fmt.Fprintf(&b, "| interface PR | %s |\n", prRef(in.Artifacts.InterfacePR))
	if len(in.SWI.DependsOn) > 0 {
		fmt.Fprintf(&b, "| depends on | %s |\n", stagekit.CellText(strings.Join(in.SWI.DependsOn, ", ")))
	}
	if in.SafetyCritical {
		b.WriteString("\n## ⚠️ Safety-critical\n\n")
		b.WriteString("**Safety-critical: requires human approval before merge.** This work item is safety-affecting. ")
		b.WriteString("CogWorks does not approve or merge; a maintainer must review and approve this PR.\n")
	}
	if len(in.Warnings) > 0 {
		b.WriteString("\n## Warnings\n\n")
		for _, w := range in.Warnings {
			fmt.Fprintf(&b, "- ⚠️ %s\n", stagekit.OneLine(w))
		}
	}
	if len(in.SWI.TestNotes) > 0 {
		b.WriteString("\n## Tests\n\n")
		b.WriteString("What code generation's test run showed, judged by CogWorks from each test's result (not the run's exit code). ")
		b.WriteString("Failures excused below did not count against the change; a flaky test may be one this change made flaky: check it before merging.\n\n")
		for _, n := range in.SWI.TestNotes {
			fmt.Fprintf(&b, "- %s\n", stagekit.OneLine(n))
		}
	}
	if len(in.Files) > 0 {
		b.WriteString("\n## Files\n\n")
		for _, f := range in.Files {
			fmt.Fprintf(&b, "- `%s`\n", audit.Untrusted(strings.ReplaceAll(f.Path, "`", "'")))
		}
	}
	if len(in.Other) > 0 {
		b.WriteString("\n## Review findings without a line\n\n")
		for _, l := range stagekit.FindingLines(in.Other) {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	b.WriteString("\nMerge bottom-up: this PR's base is the branch it builds on.\n\n---\n")
	b.WriteString(audit.Footer + "\n")
	return audit.Redact(b.String())
}

func prRef(n int) string {
	if n == 0 {
		return "—"
	}
	return "#" + strconv.Itoa(n)
}

// shortSHA is a commit's abbreviation as git prints it.
func shortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
