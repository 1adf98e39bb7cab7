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
// after a lower PR of its stack was merged or the default branch moved:
// each PR whose base was the merged branch is retargeted onto that PR's
// base, then brought up to date with update-branch (a merge, never a
// force-push); a PR whose base conflicts gets a revision whose feedback
// is the conflict, committed as a merge of the base into the branch. It
// runs under the work item's lock, as any step that writes to its
// branches, leaves the stage alone and records what it did in the status
// comment (Snapshot.Restacks).

// Restacker restacks a work item's open PRs (stages/restack.Step).
type Restacker interface {
	// Pending reads, without writing, whether a PR of in.Issue.Number
	// sits on a merged PR's branch or lacks commits of its base, and
	// otherwise why not. in carries no snapshot.
	Pending(ctx context.Context, in StageInput) (bool, string, error)
	// Restack retargets and updates the item's PRs and resolves their
	// conflicts; a resolution's tokens go to in.Snapshot's ledger.
	Restack(ctx context.Context, in StageInput) (RestackOutcome, error)
	// Items lists the work items of in.Repo with an open PR of the
	// bot's, with reads only. in carries no issue and no snapshot.
	Items(ctx context.Context, in StageInput) ([]int, error)
}

// RestackOutcome is what a restack did.
type RestackOutcome struct {
	// Retargeted maps a PR to its new base.
	Retargeted map[int]string
	// Updated are the PRs whose branch got its base merged in.
	Updated []int
	// Conflicts are the PRs whose base does not merge cleanly and that
	// no resolution reached; their branches are as they were.
	Conflicts []int
	// Resolved are the conflicts a revision resolved with a merge commit.
	Resolved []Resolution
	// Escalated are the conflicts left to a maintainer, and why.
	Escalated []Resolution
}

// Resolution is what became of one PR's conflict with its base.
type Resolution struct {
	PR int
	// Cycle numbers the PR's conflict resolutions (1-based).
	Cycle  int
	Commit string
	Reason string
}

// ActionRestack is the step action of a restack.
const ActionRestack StepAction = "restack"

// Restack runs one restack step for ref's work item under its lock:
// nothing, and no lock, when no PR of the item sits on a merged PR's
// branch or lacks commits of its base (Restacker.Pending) or the item has no state CogWorks trusts or
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
	res, held, err := s.restack(sctx, o)
	if held {
		s.release(sctx, o, s.runRecord(nonEmpty(s.stepRecord(res, nil, "", nil))))
	}
	res.Issue = ref.Issue
	res.GitHubRequests = requests.Load()
	res.DurationMS = time.Since(start).Milliseconds()
	s.logStep(res, err)
	return res, err
}

func (s *stepper) restack(ctx context.Context, o *observed) (Result, bool, error) {
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
	if err := s.readIssue(ctx, &o.wakeFacts); err != nil {
		return res, false, asTransient(err)
	}
	o.obs.Labels = pipeline.ParseLabels(o.issue.Labels)
	if err := s.readComments(ctx, &o.wakeFacts); err != nil {
		return res, false, asTransient(err)
	}
	if o.rollback != "" || !o.obs.HasSnapshot || o.snap.Stopped != nil {
		res.Outcome, res.Reason = OutcomeNotTriggered, fmt.Sprintf("work item #%d is not a running pipeline CogWorks can trust", s.ref.Issue)
		return res, false, nil
	}
	res.Stage = string(o.snap.Stage)
	if o.obs.Lock == pipeline.LockFresh && len(s.policy().Live(s.claims, s.d.now())) == 0 {
		// A bare label (a run killed before its claim): its age decides,
		// as at wake_up.
		at, err := s.processingLabelAt(ctx)
		if err != nil {
			return res, false, asTransient(err)
		}
		o.obs.Lock = s.policy().Evaluate(true, at, nil, s.d.now())
	}
	if o.obs.Lock == pipeline.LockFresh {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run holds the lock; the next event or cron run restacks"
		return res, false, nil
	}
	won, err := s.acquire(ctx, &o.wakeFacts)
	if err != nil {
		return res, false, asTransient(err)
	}
	if !won {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run won the lock"
		return res, false, nil
	}
	// The claim round read the comments again: the snapshot is fresh.
	snap := o.snap
	if !o.obs.HasSnapshot || o.rollback != "" {
		res.Outcome, res.Reason = OutcomeBackedOff, "the state changed while the lock was taken"
		return res, true, nil
	}
	view, err := snap.View()
	if err != nil {
		return res, true, err
	}
	// A resolution reads a copy and books its spend in the snapshot's ledger.
	in := StageInput{Repo: s.ref.Repo, Issue: o.issue, Config: s.d.Config, RunID: s.d.RunID, BotLogin: s.d.BotLogin,
		Logger: s.d.logger(), Stage: snap.Stage, Snapshot: view, Comments: o.comments, Ledger: pipeline.NewLedgerBook(&snap)}
	out, err := s.d.Restacker.Restack(ctx, in)
	if err != nil {
		// Nothing recorded: update-branch, the resolution's comment key
		// and its fast-forward push make the next run complete the pass
		// without a second merge.
		return res, true, asTransient(fmt.Errorf("restack work item #%d: %w", s.ref.Issue, err))
	}
	res.Outcome, res.Reason = OutcomeNotTriggered, restackSummary(out)
	if !recordRestack(&snap, out, s.d.now()) {
		return res, true, nil
	}
	var warnings []string
	for _, e := range out.Escalated {
		warnings = append(warnings, fmt.Sprintf("PR #%d conflicts with its base and was not resolved: %s; a maintainer takes it from here.", e.PR, e.Reason))
	}
	if err := s.writeState(ctx, o, snap, warnings, nil); err != nil {
		return res, true, asTransient(err)
	}
	res.Outcome = OutcomeAdvanced
	if len(out.Escalated) > 0 {
		res.Outcome = OutcomeWaiting
	}
	return res, true, nil
}

// recordRestack keeps what out did to each PR in snap, and reports
// whether it did anything.
func recordRestack(snap *pipeline.Snapshot, out RestackOutcome, at time.Time) bool {
	recs := map[int]pipeline.RestackRecord{}
	for _, pr := range out.Updated {
		recs[pr] = pipeline.RestackRecord{PR: pr, Action: pipeline.RestackUpdated, At: at}
	}
	for pr, base := range out.Retargeted {
		recs[pr] = pipeline.RestackRecord{PR: pr, Action: pipeline.RestackRetargeted, Base: base, At: at}
	}
	for _, pr := range out.Conflicts {
		recs[pr] = pipeline.RestackRecord{PR: pr, Action: pipeline.RestackConflict, Base: recs[pr].Base, At: at}
	}
	for _, r := range out.Resolved {
		recs[r.PR] = pipeline.RestackRecord{PR: r.PR, Action: pipeline.RestackResolved, Base: recs[r.PR].Base, Commit: r.Commit,
			Cycle: r.Cycle, Reason: r.Reason, At: at}
	}
	for _, r := range out.Escalated {
		recs[r.PR] = pipeline.RestackRecord{PR: r.PR, Action: pipeline.RestackEscalated, Base: recs[r.PR].Base, Cycle: r.Cycle,
			Reason: r.Reason, At: at}
	}
	for _, r := range recs {
		snap.RecordRestack(r)
	}
	return len(recs) > 0
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
	for _, r := range out.Resolved {
		parts = append(parts, fmt.Sprintf("#%d: %s resolved in merge commit %s", r.PR, r.Reason, shortSHA(r.Commit)))
	}
	for _, r := range out.Escalated {
		parts = append(parts, fmt.Sprintf("#%d: %s, left to a maintainer", r.PR, r.Reason))
	}
	if len(parts) == 0 {
		return "the stack is up to date"
	}
	return "Restack: " + strings.Join(parts, "; ")
}
