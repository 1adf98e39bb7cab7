package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// A restack (issue 28, point 4) keeps a work item's open PRs mergeable
// after a lower PR of its stack was merged: each PR whose base was the
// merged branch is retargeted onto that PR's base, then brought up to
// date with update-branch (a merge, never a force-push). It runs under
// the work item's lock, as any step that writes to its branches, and
// leaves the stage and the status comment alone.

// Restacker restacks a work item's open PRs (stages/restack.Step).
type Restacker interface {
	// Pending reads, without writing, whether a PR of in.Issue.Number
	// sits on a merged PR's branch, and otherwise why not. in carries no
	// snapshot.
	Pending(ctx context.Context, in StageInput) (bool, string, error)
	// Restack retargets and updates the item's PRs.
	Restack(ctx context.Context, in StageInput) (RestackOutcome, error)
}

// RestackOutcome is what a restack did.
type RestackOutcome struct {
	// Retargeted maps a PR to its new base.
	Retargeted map[int]string
	// Updated are the PRs whose branch got its base merged in.
	Updated []int
	// Conflicts are the PRs whose base does not merge cleanly; their
	// branches are as they were.
	Conflicts []int
}

// ActionRestack is the step action of a restack.
const ActionRestack StepAction = "restack"

// Restack runs one restack step for ref's work item under its lock:
// nothing, and no lock, when no PR of the item sits on a merged PR's
// branch (Restacker.Pending) or the item has no state CogWorks trusts or
// is stopped; a back-off when another run holds the lock.
func Restack(ctx context.Context, d Deps, ref Ref) (Result, error) {
	if d.Restacker == nil {
		return Result{Issue: ref.Issue}, errors.New("engine: Deps.Restacker is nil: restacks are not wired")
	}
	if err := d.validate(); err != nil {
		return Result{Issue: ref.Issue}, err
	}
	start := time.Now()
	sctx, requests := github.WithRequestCounter(ctx)
	s := &stepper{d: d, ref: Ref{Repo: ref.Repo, Issue: ref.Issue}}
	o := &observed{}
	res, held, err := s.restack(sctx, &o.wakeFacts)
	if held {
		s.release(sctx, o, s.runRecord(nonEmpty(s.stepRecord(res, nil, "", nil))))
	}
	res.Issue = ref.Issue
	res.GitHubRequests = requests.Load()
	res.DurationMS = time.Since(start).Milliseconds()
	s.logStep(res, err)
	return res, err
}

func (s *stepper) restack(ctx context.Context, o *wakeFacts) (Result, bool, error) {
	res := Result{Action: ActionRestack}
	pending, why, err := s.d.Restacker.Pending(ctx, StageInput{Repo: s.ref.Repo, Issue: github.Issue{Number: s.ref.Issue},
		Config: s.d.Config, RunID: s.d.RunID, BotLogin: s.d.BotLogin, Logger: s.d.logger()})
	if err != nil {
		return res, false, asTransient(err)
	}
	if !pending {
		res.Outcome, res.Reason = OutcomeNotTriggered, why
		return res, false, nil
	}
	if err := s.readIssue(ctx, o); err != nil {
		return res, false, asTransient(err)
	}
	if err := s.readComments(ctx, o); err != nil {
		return res, false, asTransient(err)
	}
	if o.rollback != "" || !o.obs.HasSnapshot || o.snap.Stopped != nil {
		res.Outcome, res.Reason = OutcomeNotTriggered, fmt.Sprintf("work item #%d is not a running pipeline CogWorks can trust", s.ref.Issue)
		return res, false, nil
	}
	res.Stage = string(o.snap.Stage)
	if o.obs.Lock == pipeline.LockFresh {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run holds the lock; the next event or cron run restacks"
		return res, false, nil
	}
	won, err := s.acquire(ctx, o)
	if err != nil {
		return res, false, asTransient(err)
	}
	if !won {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run won the lock"
		return res, false, nil
	}
	in := StageInput{Repo: s.ref.Repo, Issue: o.issue, Config: s.d.Config, RunID: s.d.RunID, BotLogin: s.d.BotLogin,
		Logger: s.d.logger(), Stage: o.snap.Stage}
	out, err := s.d.Restacker.Restack(ctx, in)
	if err != nil {
		return res, true, asTransient(fmt.Errorf("restack work item #%d: %w", s.ref.Issue, err))
	}
	res.Outcome, res.Reason = OutcomeNotTriggered, restackSummary(out)
	if len(out.Retargeted)+len(out.Updated) > 0 {
		res.Outcome = OutcomeAdvanced
	}
	return res, true, nil
}

// restackSummary is the line the run's record shows.
func restackSummary(out RestackOutcome) string {
	var parts []string
	prs := make([]int, 0, len(out.Retargeted))
	for pr := range out.Retargeted {
		prs = append(prs, pr)
	}
	sort.Ints(prs)
	for _, pr := range prs {
		parts = append(parts, fmt.Sprintf("#%d retargeted onto %s", pr, out.Retargeted[pr]))
	}
	for _, pr := range out.Updated {
		parts = append(parts, fmt.Sprintf("#%d updated with its base", pr))
	}
	for _, pr := range out.Conflicts {
		parts = append(parts, fmt.Sprintf("#%d conflicts with its base (left as it was)", pr))
	}
	if len(parts) == 0 {
		return "the stack is up to date"
	}
	return "Restack: " + strings.Join(parts, "; ")
}
