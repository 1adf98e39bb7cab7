// What an approved amendment does to a sub-work-item its re-plan no
// longer has: its sub-issue is told why, with the part of the design that
// changed, and closed as not planned when CogWorks opened it (and its
// PR was not merged); its open PR, if any, is told and left for a human
// to close.

package planning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// ObsoleteCloser closes an obsolete sub-issue of CogWorks's own as not
// planned. The adapter (github.Client) checks, through the API, that the
// issue is open, was opened by its own login and is a sub-issue of
// parent, and refuses with a *github.DeniedError otherwise.
type ObsoleteCloser interface {
	CloseObsoleteSubIssue(ctx context.Context, repo github.Repo, parent, number int) (bool, error)
}

// PullReader reads an obsolete sub-work-item's PR: a merged one keeps
// its sub-issue open, a closed one is not told.
type PullReader interface {
	GetPull(ctx context.Context, repo github.Repo, number int) (github.PullRequest, error)
}

// maxDiffInNotice bounds the design diff quoted on an obsolete
// sub-issue; the status comment of the work item has all of it.
const maxDiffInNotice = 6000

// retire tells an obsolete sub-work-item's issue (and PR) and closes the
// issue. Its writes come in an order a crash can stop anywhere: the
// notices, each keyed, then the close. An issue found closed — by this
// re-plan before a crash, or by a person — gets nothing more.
func (r Replanner) retire(ctx context.Context, in engine.StageInput, rec pipeline.SWI) error {
	n := in.Issue.Number
	is, err := r.Status.GetIssue(ctx, in.Repo, rec.Issue)
	if err != nil {
		return fmt.Errorf("read obsolete sub-work-item %s's issue #%d: %w", rec.ID, rec.Issue, err)
	}
	if is.State == "closed" {
		return nil
	}
	why := fmt.Sprintf("The specification of #%d was amended and approved, and the re-plan no longer has this sub-work-item (%s): it is obsolete and CogWorks will not work on it.", n, rec.ID)
	diff := designDiff(in.Snapshot)
	if is.User != in.BotLogin || is.IsPullRequest {
		// Not a sub-issue CogWorks opened: it is told, never closed.
		return r.tell(ctx, in, rec.Issue, "obsolete", why+" CogWorks closes only the sub-issues it opened itself; a maintainer can close this one."+diff)
	}
	var pr github.PullRequest
	if rec.PR != 0 {
		if pr, err = r.Pulls.GetPull(ctx, in.Repo, rec.PR); err != nil {
			return fmt.Errorf("read obsolete sub-work-item %s's PR #%d: %w", rec.ID, rec.PR, err)
		}
	}
	if pr.Merged {
		// Its code is in: "not planned" would say otherwise, and what to
		// keep of it is a maintainer's call.
		return r.tell(ctx, in, rec.Issue, "obsolete", why+fmt.Sprintf(" Its PR #%d was merged already, so its code is in the repository: CogWorks leaves this issue open for a maintainer to decide what to keep.", rec.PR)+diff)
	}
	if err := r.tell(ctx, in, rec.Issue, "obsolete", why+" CogWorks closes it as not planned."+diff); err != nil {
		return err
	}
	if pr.State == "open" {
		body := fmt.Sprintf("This PR builds sub-work-item %s (#%d), which the approved amendment of #%d made obsolete. CogWorks never closes pull requests: a maintainer can close this one and delete its branch.", rec.ID, rec.Issue, n)
		if err := r.tell(ctx, in, rec.PR, "obsolete-pr", body); err != nil {
			return err
		}
	}
	_, err = r.Closer.CloseObsoleteSubIssue(ctx, in.Repo, n, rec.Issue)
	var denied *github.DeniedError
	if errors.As(err, &denied) {
		// The adapter's own check disagrees with the records: say so on
		// the issue and leave it open.
		if in.Logger != nil {
			in.Logger.Warn("obsolete sub-issue left open", "issue", rec.Issue, "reason", denied.Error())
		}
		return r.tell(ctx, in, rec.Issue, "obsolete-kept-open", "CogWorks did not close this issue after all: "+denied.Detail+". A maintainer can close it.")
	}
	if err != nil {
		return fmt.Errorf("close obsolete sub-work-item %s's issue #%d: %w", rec.ID, rec.Issue, err)
	}
	return nil
}

// designDiff is what changed in the design the plan was made from, as
// the approved amendment has it: each changed file's changed lines with
// a little context, cut to maxDiffInNotice.
func designDiff(snap *pipeline.Snapshot) string {
	if snap.Design == nil || snap.Amended == nil {
		return ""
	}
	var b strings.Builder
	paths := snap.Design.Paths()
	for _, p := range snap.Amended.Paths() {
		if _, ok := snap.Design.File(p); !ok {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		was, _ := snap.Design.File(p)
		now, _ := snap.Amended.File(p)
		if was.SHA256 == now.SHA256 {
			continue
		}
		chunk := "(too long to keep; the work item's status comment and the file's history have the change)"
		if !snap.Design.Omitted && !snap.Amended.Omitted {
			chunk = audit.TextDiffHunks(was.Text, now.Text, 2)
		}
		chunk = fmt.Sprintf("\n\n`%s`:\n\n%s", stagekit.CellText(p), chunk)
		if b.Len() > 0 && b.Len()+len(chunk) > maxDiffInNotice {
			// Whole files only, so that no fence is cut open.
			b.WriteString("\n\n(more: the work item's status comment has the whole diff)")
			break
		}
		b.WriteString(chunk)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\nWhat changed in the design:" + b.String()
}
