package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// A revision (issue 28) answers review feedback on one of a work item's
// open PRs without moving its stage: wake_up reads the PR's threads first
// (no write when no writer's or trusted bot's thread awaits an answer, so
// an outsider's review costs no lock), takes the work item's lock, runs
// one revision cycle (stages/revision: one follow-up commit, one reply per
// thread) and records it in the status comment, along the machine's
// wake_up → revision → exit_waiting edges. The cycle is crash-safe by its
// own keys (commit trailer, reply markers); the snapshot write after it
// only records it, so a crash before that write repeats nothing.

// PRReviser runs the revision cycle of a work item's PR
// (stages/revision.Step implements it).
type PRReviser interface {
	// Pending reads, without writing, whether pr awaits a revision and
	// otherwise why not. in carries no snapshot.
	Pending(ctx context.Context, in StageInput, pr int) (bool, string, error)
	// Revise runs one cycle; its tokens go to in.Snapshot's ledger.
	Revise(ctx context.Context, in StageInput, pr int) (RevisionOutcome, error)
}

// RevisionOutcome is what a cycle did, as the status comment records it.
type RevisionOutcome struct {
	// Action is pipeline.RevisionRevised, RevisionEscalated,
	// RevisionIgnored, or for CI RevisionRerun or RevisionInfrastructure.
	Action  pipeline.RevisionAction
	Cycle   int
	Commit  string
	Threads int
	Reason  string
	// CI is set for a cycle on failing CI (CIReviser): it answers no
	// thread.
	CI bool
	// Changes are the snapshot changes the cycle decided (the revised
	// sub-work-item's committed paths), applied with its record.
	Changes []pipeline.Change
}

// RevisionRef names a work item's PR whose feedback a revision step checks.
type RevisionRef struct {
	Repo github.Repo
	// Issue is the work item the PR belongs to (its branch cogworks/<N>/…).
	Issue int
	PR    int
}

// ActionRevise is the step action of a revision.
const ActionRevise StepAction = "revise"

// Revise runs one revision step for ref: nothing when no thread awaits an
// answer, else one cycle under the work item's lock, recorded in its
// status comment.
func Revise(ctx context.Context, d Deps, ref RevisionRef) (Result, error) {
	if d.Reviser == nil {
		return Result{Issue: ref.Issue}, errors.New("engine: Deps.Reviser is nil: revisions are not wired")
	}
	return reviseWith(ctx, d, d.Reviser, ref)
}

// reviseWith runs one revision step of ref's PR with r's cycle: review
// feedback (Deps.Reviser) or CI feedback (Deps.CIReviser), under the same
// lock, trust and recording rules.
func reviseWith(ctx context.Context, d Deps, r PRReviser, ref RevisionRef) (Result, error) {
	if err := d.validate(); err != nil {
		return Result{Issue: ref.Issue}, err
	}
	start := time.Now()
	sctx, requests := github.WithRequestCounter(ctx)
	if ref.Issue == 0 {
		// A /cogworks fix comment names the PR only: its branch names the item.
		p, err := d.GitHub.GetPull(sctx, ref.Repo, ref.PR)
		if err != nil {
			return Result{Action: ActionRevise, GitHubRequests: requests.Load()}, asTransient(fmt.Errorf("read %s#%d: %w", ref.Repo, ref.PR, err))
		}
		n, ok := pipeline.WorkItemOfBranch(p.Head)
		if !ok {
			return Result{Action: ActionRevise, Outcome: OutcomeNotTriggered, GitHubRequests: requests.Load(),
				Reason: fmt.Sprintf("pull request #%d (head %q) is not on a CogWorks branch", ref.PR, p.Head)}, nil
		}
		ref.Issue = n
	}
	s := &stepper{d: d, ref: Ref{Repo: ref.Repo, Issue: ref.Issue}}
	o := &observed{}
	res, record, held, err := s.revise(sctx, o, r, ref.PR)
	if held {
		s.release(sctx, o, s.runRecord(nonEmpty(record)))
	}
	res.Issue = ref.Issue
	res.GitHubRequests = requests.Load()
	res.DurationMS = time.Since(start).Milliseconds()
	s.logStep(res, err)
	return res, err
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func (s *stepper) revise(ctx context.Context, o *observed, r PRReviser, pr int) (Result, string, bool, error) {
	res := Result{Action: ActionRevise}
	in := StageInput{Repo: s.ref.Repo, Config: s.d.Config, RunID: s.d.RunID, BotLogin: s.d.BotLogin, Logger: s.d.logger()}
	pending, why, err := r.Pending(ctx, in, pr)
	if err != nil {
		return res, "", false, asTransient(err)
	}
	if !pending {
		res.Outcome, res.Reason = OutcomeNotTriggered, why
		return res, "", false, nil
	}
	if err := s.readIssue(ctx, &o.wakeFacts); err != nil {
		return res, "", false, asTransient(err)
	}
	o.obs.Labels = pipeline.ParseLabels(o.issue.Labels)
	if err := s.readComments(ctx, &o.wakeFacts); err != nil {
		return res, "", false, asTransient(err)
	}
	m, err := s.machine(o.snap)
	if err != nil {
		return res, "", false, err
	}
	if o.rollback != "" || !o.obs.HasSnapshot {
		res.Outcome, res.Reason = OutcomeNotTriggered, fmt.Sprintf("work item #%d has no state CogWorks can trust to record a revision in", s.ref.Issue)
		return res, "", false, nil
	}
	res.Stage = string(o.snap.Stage)
	if _, err := m.Fire(pipeline.StateWakeUp, pipeline.EventRevise, pipeline.GuardInput{Snapshot: o.snap}); err != nil {
		res.Outcome, res.Reason = OutcomeWaiting, "no revision now: "+err.Error()
		return res, "", false, nil
	}
	if o.obs.Lock == pipeline.LockFresh && len(s.policy().Live(s.claims, s.d.now())) == 0 {
		// A bare label (a run killed before its claim): its age decides, as at wake_up.
		at, err := s.processingLabelAt(ctx)
		if err != nil {
			return res, "", false, asTransient(err)
		}
		o.obs.Lock = s.policy().Evaluate(true, at, nil, s.d.now())
	}
	if o.obs.Lock == pipeline.LockFresh {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run holds the lock; the next event or cron run revises"
		return res, "", false, nil
	}
	won, err := s.acquire(ctx, &o.wakeFacts)
	if err != nil {
		return res, "", false, asTransient(err)
	}
	if !won {
		res.Outcome, res.Reason = OutcomeBackedOff, "another run won the lock"
		return res, "", false, nil
	}
	// The claim round read the comments again: the snapshot is fresh.
	snap := o.snap
	if !o.obs.HasSnapshot || o.rollback != "" {
		res.Outcome, res.Reason = OutcomeBackedOff, "the state changed while the lock was taken"
		return res, "", true, nil
	}
	view, err := snap.View()
	if err != nil {
		return res, "", true, err
	}
	// The reviser reads a copy and books its spend in the snapshot's ledger.
	in.Issue, in.Snapshot, in.Comments, in.Stage = o.issue, view, o.comments, snap.Stage
	in.Ledger = pipeline.NewLedgerBook(&snap)
	ctx, events := audit.WithEvents(ctx)
	out, err := r.Revise(ctx, in, pr)
	if err != nil {
		// Nothing recorded: the cycle's own keys make the next run
		// complete it without a second commit or reply.
		return res, "", true, asTransient(fmt.Errorf("revise %s#%d: %w", s.ref.Repo, pr, err))
	}
	if out.Action == pipeline.RevisionIgnored {
		res.Outcome, res.Reason = OutcomeNotTriggered, out.Reason
		return res, "", true, nil
	}
	ev := pipeline.EventRevised
	switch out.Action {
	case pipeline.RevisionEscalated:
		ev = pipeline.EventRevisionStopped
	case pipeline.RevisionRerun, pipeline.RevisionInfrastructure:
		ev = pipeline.EventCIInfrastructure
	}
	if err := snap.Apply(out.Changes...); err != nil {
		return res, "", true, fmt.Errorf("record revision of %s#%d: %w", s.ref.Repo, pr, err)
	}
	snap.RecordRevision(pipeline.RevisionRecord{PR: pr, Cycle: out.Cycle, Action: out.Action, Commit: out.Commit,
		Threads: out.Threads, Reason: out.Reason, At: s.d.now()})
	if _, err := m.Fire(pipeline.StateRevision, ev, pipeline.GuardInput{Snapshot: snap, MaxRevisionCycles: s.d.Config.Revision.Cycles()}); err != nil {
		return res, "", true, fmt.Errorf("record revision of %s#%d: %w", s.ref.Repo, pr, err)
	}
	summary := revisionSummary(pr, out)
	events.Add(audit.Event{Kind: audit.KindTransition, Stage: string(snap.Stage), SWI: snap.CurrentSWI, Summary: summary})
	var warnings []string
	if out.Action == pipeline.RevisionEscalated {
		warnings = append(warnings, summary)
	}
	if err := s.writeState(ctx, o, snap, warnings, nil); err != nil {
		return res, "", true, asTransient(err)
	}
	res.Outcome, res.Reason = OutcomeAdvanced, summary
	if out.Action == pipeline.RevisionEscalated {
		res.Outcome = OutcomeWaiting
	}
	return res, s.stepRecord(res, nil, "", events.List()), true, nil
}

// revisionSummary is the line the status comment and the run's record show.
func revisionSummary(pr int, out RevisionOutcome) string {
	if out.CI {
		switch out.Action {
		case pipeline.RevisionRerun:
			return fmt.Sprintf("CI of PR #%d: no revision cycle spent. %s.", pr, out.Reason)
		case pipeline.RevisionInfrastructure:
			return fmt.Sprintf("CI of PR #%d: no revision cycle spent, nothing re-run; the PR is told. %s.", pr, out.Reason)
		}
		if out.Action == pipeline.RevisionEscalated {
			return fmt.Sprintf("CI revision %d of PR #%d stopped: %s; a maintainer takes it from here.", out.Cycle, pr, out.Reason)
		}
		return fmt.Sprintf("CI revision %d of PR #%d: commit %s answers the failing CI (%s).", out.Cycle, pr, shortSHA(out.Commit), out.Reason)
	}
	if out.Action == pipeline.RevisionEscalated {
		return fmt.Sprintf("Revision %d of PR #%d stopped: %s; %d review thread(s) answered, a maintainer takes it from here.", out.Cycle, pr, out.Reason, out.Threads)
	}
	return fmt.Sprintf("Revision %d of PR #%d: commit %s answers %d review thread(s).", out.Cycle, pr, shortSHA(out.Commit), out.Threads)
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
