package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

type stepper struct {
	d      Deps
	ref    Ref
	claims []pipeline.LockClaim
	claim  pipeline.LockClaim // ours, once won
	// issueEvents caches the issue's events for the step (nil: unread).
	issueEvents []github.IssueEvent
	// after is the issue as the step left it, for the next step of Run.
	after *github.Issue
}

func (s *stepper) policy() pipeline.LockPolicy {
	return pipeline.LockPolicy{Timeout: s.d.Config.Pipeline.LockTimeout.Duration}
}

// Step performs one invocation of the step function for one issue.
func Step(ctx context.Context, d Deps, ref Ref) (Result, error) {
	res, _, err := step(ctx, d, ref)
	return res, err
}

// step runs one step and also returns the issue as the step left it
// (nil when unknown), so that Run's next step need not read it again.
func step(ctx context.Context, d Deps, ref Ref) (Result, *github.Issue, error) {
	if err := d.validate(); err != nil {
		return Result{}, nil, err
	}
	start := time.Now()
	// The count travels with the context, so that steps running at once on
	// one client (process-all) each report their own requests.
	ctx, requests := github.WithRequestCounter(ctx)
	s := &stepper{d: d, ref: ref}
	res, err := s.step(ctx)
	res.Issue = ref.Issue
	res.GitHubRequests = requests.Load()
	res.DurationMS = time.Since(start).Milliseconds()
	log := d.logger().With("pipeline_id", fmt.Sprintf("%s#%d", ref.Repo, ref.Issue), "stage", res.Stage,
		"action", res.Action, "result", res.Outcome, "duration_ms", res.DurationMS, "github_requests", res.GitHubRequests)
	if err != nil {
		log.Error("step failed", "error", err)
	} else {
		log.Info("step", "reason", res.Reason)
	}
	return res, s.after, err
}

func (s *stepper) step(ctx context.Context) (Result, error) {
	o, err := s.wake(ctx)
	if err != nil {
		return Result{Action: "wake_up"}, asTransient(err)
	}
	v := pipeline.Decide(o.obs)
	res := Result{Stage: string(v.Stage), Action: "wake_up", Reason: v.Reason}
	// A waiting or finished item still gets a write when its labels are out
	// of step with the snapshot (a crash, or someone else's edit), or a
	// stale lock or a spent or refused approval label is left behind.
	repair := (v.Decision == pipeline.DecisionWaiting || v.Decision == pipeline.DecisionTerminal) &&
		(len(labelDrift(o)) > 0 || o.obs.Lock == pipeline.LockStale || s.expiredClaims() ||
			o.obs.Approval.Stale || len(o.obs.Approval.Rejected) > 0)
	switch {
	case v.Decision == pipeline.DecisionNotTriggered:
		res.Outcome = OutcomeNotTriggered
		return res, nil
	case v.Decision == pipeline.DecisionBackedOff:
		res.Outcome = OutcomeBackedOff
		return res, nil
	case v.Decision != pipeline.DecisionRun && !repair:
		res.Outcome = outcomeOf(v)
		s.keep(o)
		return res, nil
	case s.d.DryRun:
		res.Action = string(v.Action) + " (dry run)"
		res.Outcome = outcomeOf(v)
		res.Reason = "would advance: " + v.Reason
		if v.Decision != pipeline.DecisionRun {
			res.Reason = "would repair labels: " + v.Reason
		}
		return res, nil
	}

	won, err := s.acquire(ctx, o)
	if err != nil {
		return Result{Stage: res.Stage, Action: "lock"}, asTransient(err)
	}
	if !won {
		res.Action, res.Outcome, res.Reason = "lock", OutcomeBackedOff, "another run won the lock"
		return res, nil
	}
	record := ""
	defer func() {
		s.release(ctx, o, record)
		s.keep(o)
	}()

	// The claim round read the comments: decide again on fresh state, since
	// a run that held the lock before us may have moved the item on.
	o.obs.Lock = pipeline.LockFree
	o.repaired = labelDrift(o)
	if o.obs.HasSnapshot && o.snap.Gate != nil && !o.judged {
		if err := s.judgeGate(ctx, o); err != nil {
			return res, asTransient(err)
		}
	}
	v = pipeline.Decide(o.obs)
	res = Result{Stage: string(v.Stage), Action: string(v.Action), Reason: v.Reason}
	if v.Decision != pipeline.DecisionRun {
		res.Action = "repair_labels"
		res.Outcome = outcomeOf(v)
		return res, asTransient(s.repairLabels(ctx, o))
	}
	res, record, err = s.run(ctx, o, v)
	return res, err
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
	if len(o.obs.Approval.Rejected) > 0 || len(o.repaired) > 0 {
		// Name the refused approver, or the repair, in the status comment.
		return s.writeState(ctx, o, o.snap, nil, consumed)
	}
	s.planLabels(o, o.snap, consumed)
	return nil
}

// keep remembers the issue as the step left it for Run's next step.
func (s *stepper) keep(o *observed) {
	issue := o.issue
	s.after = &issue
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
	if _, ok := err.(*TransientError); ok {
		return err
	}
	return &TransientError{Err: err}
}

// expiredClaims reports lock claims left behind by killed runs.
func (s *stepper) expiredClaims() bool {
	return len(s.policy().Live(s.claims, s.d.now())) < len(s.claims)
}
