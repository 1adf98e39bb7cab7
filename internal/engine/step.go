package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// stepper is one run's view of a work item: the lock it holds, the
// issue's events once read.
type stepper struct {
	d      Deps
	ref    Ref
	claims []pipeline.LockClaim
	claim  pipeline.LockClaim // ours, once won
	// issueEvents caches the issue's events for the step (nil: unread).
	issueEvents []github.IssueEvent
	// triggerDone caches trigger's answer for the step.
	triggerDone   bool
	triggerActor  string
	triggerWriter bool
	// wroteSeq is the sequence number of the last state block this run
	// wrote (0: none); the run's record carries it, signed.
	wroteSeq int64
	// newestRecord is the highest signed sequence number among the runs'
	// records, as the comments were last read.
	newestRecord int64
	// perms caches people's permissions on the repository for the run.
	perms map[string]string
}

func (s *stepper) policy() pipeline.LockPolicy {
	return pipeline.LockPolicy{Timeout: s.d.Config.Pipeline.LockTimeout.Duration}
}

// Step performs one invocation of the step function for one issue.
func Step(ctx context.Context, d Deps, ref Ref) (Result, error) {
	results, err := Run(ctx, d, ref, 1)
	if len(results) == 0 {
		return Result{Issue: ref.Issue}, err
	}
	return results[0], err
}

// first is a run's first step: wake_up, decide, and when the verdict is to
// act (or to repair labels), take the lock and act. It reports the step's
// record for the claim comment.
func (s *stepper) first(ctx context.Context, o *observed) (Result, string, bool, error) {
	if err := s.wake(ctx, o); err != nil {
		return Result{Action: ActionWakeUp}, "", false, asTransient(err)
	}
	v := pipeline.Decide(o.obs)
	res := Result{Stage: string(v.Stage), Action: ActionWakeUp, Reason: v.Reason}
	// A waiting or finished item still gets a write when its labels are out
	// of step with the snapshot (a crash, or someone else's edit), or a
	// stale lock or a spent or refused approval label is left behind.
	repair := (v.Decision == pipeline.DecisionWaiting || v.Decision == pipeline.DecisionTerminal) &&
		(len(labelDrift(&o.wakeFacts)) > 0 || o.rollback != "" || o.obs.Lock == pipeline.LockStale || s.expiredClaims() ||
			o.obs.Approval.Stale || len(o.obs.Approval.Rejected) > 0)
	switch {
	case v.Decision == pipeline.DecisionNotTriggered && !o.cmd.work():
		res.Outcome = OutcomeNotTriggered
		return res, "", false, nil
	case v.Decision == pipeline.DecisionBackedOff:
		res.Outcome = OutcomeBackedOff
		return res, "", false, nil
	case v.Decision != pipeline.DecisionRun && !repair && !o.cmd.work():
		res.Outcome = outcomeOf(v)
		return res, "", false, nil
	case s.d.DryRun:
		res.Action = StepAction(string(v.Action) + " (dry run)")
		res.Outcome = outcomeOf(v)
		res.Reason = "would advance: " + v.Reason
		if v.Decision != pipeline.DecisionRun {
			res.Reason = "would repair labels: " + v.Reason
		}
		return res, "", false, nil
	}

	if reason, held, err := s.untrustedTrigger(ctx, &o.wakeFacts, v); err != nil || held {
		// Spends nothing: no lock, no write, no stage (no LLM call).
		res.Outcome, res.Reason = OutcomeWaiting, reason
		return res, "", false, asTransient(err)
	}
	won, err := s.acquire(ctx, &o.wakeFacts)
	if err != nil {
		return Result{Stage: res.Stage, Action: ActionLock}, "", false, asTransient(err)
	}
	if !won {
		res.Action, res.Outcome, res.Reason = ActionLock, OutcomeBackedOff, "another run won the lock"
		return res, "", false, nil
	}
	// The claim round read the comments: decide again on fresh state, since
	// a run that held the lock before us may have moved the item on.
	o.obs.Lock = pipeline.LockFree
	if err := s.scanCommands(ctx, &o.wakeFacts, &o.cmd); err != nil {
		return res, "", true, asTransient(err)
	}
	s.liftStop(&o.wakeFacts, &o.cmd)
	o.labels.repaired = labelDrift(&o.wakeFacts)
	res, record, err := s.act(ctx, o)
	return res, record, true, err
}

// next is a later step of a run that holds the lock: it re-reads the
// comments (the snapshot the previous step wrote, and the claims, to
// confirm the lock is still ours) and acts on the state it finds.
func (s *stepper) next(ctx context.Context, o *observed) (Result, string, bool, error) {
	if err := s.readComments(ctx, &o.wakeFacts); err != nil {
		return Result{Action: ActionWakeUp}, "", true, asTransient(err)
	}
	if w, ok := s.policy().Winner(s.claims, s.d.now()); !ok || w.CommentID != s.claim.CommentID {
		// Our claim expired and another run took the lock over: stop
		// without a write; the lock is no longer ours to release.
		return Result{Action: ActionLock, Outcome: OutcomeBackedOff, Reason: "the lock was taken over"}, "", false, nil
	}
	labels := o.issue.Labels
	if o.labels.want != nil {
		labels = o.labels.want
	}
	o.obs.Labels = pipeline.ParseLabels(labels)
	o.obs.Lock = pipeline.LockFree
	o.obs.Approval = pipeline.ApprovalVerdict{}
	o.judged, o.labels.repaired = false, nil
	if err := s.scanCommands(ctx, &o.wakeFacts, &o.cmd); err != nil {
		return Result{Action: ActionWakeUp}, "", true, asTransient(err)
	}
	s.liftStop(&o.wakeFacts, &o.cmd)
	res, record, err := s.act(ctx, o)
	return res, record, true, err
}

// act decides on the state read under the lock and runs the verdict.
func (s *stepper) act(ctx context.Context, o *observed) (Result, string, error) {
	if o.rollback != "" {
		return s.refuseRolledBack(ctx, &o.wakeFacts)
	}
	if o.obs.HasSnapshot && o.snap.Gate != nil && o.obs.Labels.Approve && !o.judged {
		if err := s.judgeGate(ctx, &o.wakeFacts); err != nil {
			return Result{Action: ActionWakeUp}, "", asTransient(err)
		}
	}
	if err := s.applyCommands(ctx, &o.wakeFacts, &o.cmd); err != nil {
		return Result{Action: ActionCommands}, "", asTransient(err)
	}
	v := pipeline.Decide(o.obs)
	res := Result{Stage: string(v.Stage), Action: StepAction(v.Action), Reason: v.Reason}
	if v.Decision != pipeline.DecisionRun {
		res.Action = ActionRepairLabels
		if o.cmd.handled {
			res.Action = ActionCommands
		}
		res.Outcome = outcomeOf(v)
		return res, "", asTransient(s.repairLabels(ctx, o))
	}
	return s.run(ctx, o, v)
}

// repairLabels restores labels from the snapshot at a waiting gate or an
// end, consuming a spent or refused approval label.
func (s *stepper) repairLabels(ctx context.Context, o *observed) error {
	var consumed []string
	if o.obs.Approval.Stale || len(o.obs.Approval.Rejected) > 0 {
		// A used or refused approval label must go: GitHub records no new
		// event when a label already present is applied again, so a
		// maintainer could not approve while it stays.
		consumed = append(consumed, pipeline.LabelApprove)
	}
	if len(o.obs.Approval.Rejected) > 0 || len(o.labels.repaired) > 0 || o.cmd.handled {
		// Name the refused approver, or the repair, in the status comment;
		// record handled commands (commands_seen, a stop) there.
		return s.writeState(ctx, o, o.snap, nil, consumed)
	}
	s.planLabels(o, o.snap, consumed)
	return nil
}

// logStep logs one step's result.
func (s *stepper) logStep(res Result, err error) {
	log := s.d.logger().With("pipeline_id", fmt.Sprintf("%s#%d", s.ref.Repo, s.ref.Issue), "stage", res.Stage,
		"action", res.Action, "result", res.Outcome, "duration_ms", res.DurationMS, "github_requests", res.GitHubRequests)
	if err != nil {
		log.Error("step failed", "error", err)
		return
	}
	log.Info("step", "reason", res.Reason)
}

func outcomeOf(v pipeline.Verdict) StepOutcome {
	switch v.Decision {
	case pipeline.DecisionNotTriggered:
		return OutcomeNotTriggered
	case pipeline.DecisionBackedOff:
		return OutcomeBackedOff
	case pipeline.DecisionWaiting:
		return OutcomeWaiting
	case pipeline.DecisionTerminal:
		if v.Stage == pipeline.StageFailed {
			return OutcomeFailed
		}
		return OutcomeComplete
	}
	return OutcomeAdvanced
}

// asTransient wraps errors that should leave state alone as transient.
func asTransient(err error) error {
	if err == nil || !isTransient(err) {
		return err
	}
	var te *TransientError
	if errors.As(err, &te) {
		return err
	}
	return &TransientError{Err: err}
}

// expiredClaims reports lock claims left behind by killed runs.
func (s *stepper) expiredClaims() bool {
	return len(s.policy().Live(s.claims, s.d.now())) < len(s.claims)
}
