package revision

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Coder runs code generation's attempt on a sub-work-item with feedback
// (codegen.Executor.Revise).
type Coder interface {
	Revise(ctx context.Context, in engine.StageInput, swiID, feedback string) (codegen.Revision, error)
}

// Reviewer runs the review passes on a change (stages/review.Executor.Passes).
type Reviewer interface {
	Passes(ctx context.Context, in engine.StageInput, rec pipeline.SWI, title, body string, files []domain.Artifact) (review.Result, error)
}

// Attempt is the Generator of a revision step: the code-generation
// attempt of the PR's sub-work-item, fed the review feedback, then the
// review passes on its change, as for any attempt; blocking findings go
// back to code generation up to budgets.review_max_remediation_cycles
// times.
type Attempt struct {
	Code   Coder
	Review Reviewer
	Issues stagekit.IssueReader
	// In is the revision step's input: the work item's snapshot (whose
	// ledger the tokens go to), configuration and bot login.
	In engine.StageInput
	// Decided collects the snapshot changes of the code-generation
	// attempts (their committed paths) for the engine to apply; nil
	// drops them.
	Decided *[]pipeline.Change
	// Spec and Design revise the specification PR and the interface PR
	// (architecture's and interface design's Revise); nil leaves such a
	// PR unrevised, with a reply saying so.
	Spec, Design Designer
}

// Revise implements Generator: the specification or interface PR goes to
// its design stage (reviseDesign), a sub-work-item's PR to code
// generation and the review passes.
func (a Attempt) Revise(ctx context.Context, req Request) (Change, error) {
	if d, ok := designOf(a.In.Snapshot, req.PR, req.Branch); ok {
		return a.reviseDesign(ctx, req, d)
	}
	rec := prSWI(a.In.Snapshot, req.PR, req.Branch)
	if rec == nil {
		return Change{Reason: fmt.Sprintf("pull request #%d is none of this work item's: not its specification, its interfaces or a sub-work-item's", req.PR)}, nil
	}
	title, body := rec.Title, rec.Description
	if rec.Issue > 0 && a.Issues != nil {
		issue, err := a.Issues.GetIssue(ctx, req.Repo, rec.Issue)
		if err != nil {
			return Change{}, fmt.Errorf("read sub-work-item %s issue #%d: %w", rec.ID, rec.Issue, err)
		}
		title, body = issue.Title, issue.Body
	}
	feedback := req.Feedback
	limit := pipeline.RemediationLimit(a.In.Config.Budgets.ReviewMaxRemediationCycles)
	for round := 0; ; round++ {
		rv, err := a.Code.Revise(ctx, a.In, rec.ID, feedback)
		if reason, ok := escalated(err); ok {
			return Change{Reason: "code generation's attempts did not pass the domain service's checks: " + reason}, nil
		}
		if err != nil {
			return Change{}, err
		}
		if a.Decided != nil {
			*a.Decided = append(*a.Decided, rv.Changes...)
		}
		files := make([]domain.Artifact, 0, len(rv.Files))
		for _, p := range slices.Sorted(maps.Keys(rv.Files)) {
			files = append(files, domain.Artifact{Path: p, Content: rv.Files[p]})
		}
		res, err := a.Review.Passes(ctx, a.In, *rec, title, body, files)
		if reason, ok := escalated(err); ok {
			return Change{Reason: "the review passes did not answer: " + reason}, nil
		}
		if err != nil {
			return Change{}, err
		}
		if len(res.Blocking) == 0 {
			return change(req, written{files: rv.Files, deleted: rv.Deleted, summary: rv.Notes}), nil
		}
		if round+1 >= limit {
			return Change{Reason: fmt.Sprintf("the review passes still found %d blocking finding(s) after %d attempt(s)", len(res.Blocking), round+1)}, nil
		}
		feedback = req.Feedback + "\n\n" + review.RenderFeedback(res.Blocking)
	}
}

// escalated reports an escalation's reason: an attempt that failed on its
// own terms is a "not revised" answer, not a failure of the step.
func escalated(err error) (string, bool) {
	var esc *escalation.Error
	if errors.As(err, &esc) {
		return esc.Reason, true
	}
	return "", false
}

// written is what an attempt wrote: files, deleted paths and its own
// account of the change.
type written struct {
	files   map[string]string
	deleted []string
	summary string
}

// change turns a passing revision into the cycle's change, with a note
// per thread on what happened to the file it is on.
func change(req Request, rv written) Change {
	c := Change{Files: rv.files, Delete: rv.deleted, Summary: strings.TrimSpace(rv.summary), Notes: map[int64]string{}}
	paths := slices.Sorted(maps.Keys(rv.files))
	for _, t := range req.Threads {
		_, wrote := rv.files[t.Path]
		switch {
		case t.Conversation:
			c.Notes[t.ID] = fmt.Sprintf("changed %s. %s", strings.Join(append(paths, rv.deleted...), ", "), c.Summary)
		case wrote:
			c.Notes[t.ID] = fmt.Sprintf("changed %s. %s", t.Path, c.Summary)
		case slices.Contains(rv.deleted, t.Path):
			c.Notes[t.ID] = fmt.Sprintf("deleted %s. %s", t.Path, c.Summary)
		default:
			c.Notes[t.ID] = fmt.Sprintf("%s is unchanged; the change is elsewhere. %s", t.Path, c.Summary)
		}
	}
	return c
}

// prSWI is the sub-work-item whose PR (or branch) is pr.
func prSWI(snap *pipeline.Snapshot, pr int, branch string) *pipeline.SWI {
	if snap == nil {
		return nil
	}
	for i := range snap.SubWorkItems {
		rec := &snap.SubWorkItems[i]
		if rec.PR == pr || (rec.PR == 0 && branch != "" && stagekit.BranchOf(snap, *rec) == branch) {
			return rec
		}
	}
	return nil
}
