package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/pipeline"
)

// run executes a DecisionRun verdict while holding the lock.
func (s *stepper) run(ctx context.Context, o *observed, v pipeline.Verdict) (Result, error) {
	snap := o.snap
	if !o.obs.HasSnapshot {
		// Lost or first snapshot: rebuild from labels. Executors find their
		// artifacts again by branch, PR head and body markers.
		snap = pipeline.NewSnapshot(s.ref.Repo.String(), s.ref.Issue)
		stage, err := o.obs.Labels.Stage() // "" for a fresh item
		if err != nil {
			// Several stage labels and no snapshot: resume at the most
			// advanced one rather than restart; the label write at the end
			// of the step leaves exactly one.
			stage = mostAdvanced(o.obs.Labels.Stages)
		}
		snap.Stage = stage
	}
	res := Result{Action: string(v.Action), Reason: v.Reason}
	ctx, events := audit.WithEvents(ctx)
	// An approval label is consumed by every run step: it was either used
	// to pass this gate or predates the gate the step may open.
	consumed := []string{pipeline.LabelApprove}
	var entered []pipeline.Stage
	now := s.d.now()

	switch v.Action {
	case pipeline.ActionRetry:
		if snap.Failure != nil {
			snap.Stage = snap.Failure.Stage
		}
		if snap.Stage == "" || snap.Stage == pipeline.StageFailed {
			snap.Stage = pipeline.StageIntake
		}
		snap.Failure = nil
		consumed = append(consumed, pipeline.LabelRetry)
		events.Add(audit.Event{Kind: "transition", Stage: string(snap.Stage), Summary: pipeline.LabelRetry + ": resume the failed stage"})
	case pipeline.ActionPassGate:
		gate := snap.Gate
		snap.Approvals = append(snap.Approvals, pipeline.Approval{Stage: gate.Stage, SWI: gate.SWI, By: o.obs.Approval.By, At: now, Via: o.obs.Approval.Via, EventID: o.obs.Approval.EventID})
		events.Add(audit.Event{Kind: "gate", Stage: string(gate.Stage), SWI: gate.SWI,
			Summary: fmt.Sprintf("approved by @%s via %s", o.obs.Approval.By, o.obs.Approval.Via)})
		snap.Gate = nil
		snap.Stage = gate.Stage.Next()
		entered = append(entered, snap.Stage)
	default:
		if snap.Stage == "" {
			snap.Stage = pipeline.StageIntake
			entered = append(entered, snap.Stage)
		}
	}
	stage := snap.Stage
	res.Stage = string(stage)

	if s.d.Registry != nil {
		if err := s.d.Registry.ValidateRegistry(ctx); err != nil {
			if isTransient(err) {
				return res, asTransient(err)
			}
			return s.fail(ctx, o, &snap, stage, fmt.Sprintf("interface registry is invalid: %v", err), err, consumed)
		}
	}
	ex := s.d.Executors[stage]
	if ex == nil {
		return s.fail(ctx, o, &snap, stage, fmt.Sprintf("no executor is registered for stage %s", stage), nil, consumed)
	}
	for _, st := range entered {
		if err := s.postEntry(ctx, o, snap, st, ""); err != nil {
			return res, asTransient(err)
		}
	}
	if len(entered) > 0 {
		// Show the entered stage at once (ASSERT-PSM-001); if we crash
		// before the snapshot is written, the next run trusts the old
		// snapshot and repeats the entry idempotently.
		if err := s.writeLabels(ctx, o, snap, nil); err != nil {
			return res, asTransient(err)
		}
	}
	if snap.Attempts == nil {
		snap.Attempts = map[string]int{}
	}
	snap.Attempts[attemptKey(snap, stage)]++
	out, err := ex.Execute(ctx, StageInput{
		Repo: s.ref.Repo, Issue: o.issue, Stage: stage, Snapshot: &snap,
		Config: s.d.Config, RunID: s.d.RunID, Logger: s.d.logger().With("stage", stage, "sub_work_item", snap.CurrentSWI),
	})
	if err != nil {
		if isTransient(err) {
			return res, asTransient(err)
		}
		events.Add(audit.Event{Kind: "transition", Stage: string(stage), SWI: snap.CurrentSWI, Summary: "failed: " + reasonOf(err)})
		if perr := s.postEvents(ctx, o, snap, stage, events); perr != nil {
			return res, asTransient(perr)
		}
		return s.fail(ctx, o, &snap, stage, reasonOf(err), err, consumed)
	}
	res.Outcome = OutcomeAdvanced
	if out.Summary != "" {
		res.Reason = out.Summary
	}
	if out.Outcome == StageDone {
		if err := s.transition(ctx, o, &snap, stage, out, &res); err != nil {
			return res, asTransient(err)
		}
		events.Add(transitionEvent(snap, stage, res.Outcome))
	}
	if err := s.postEvents(ctx, o, snap, stage, events); err != nil {
		return res, asTransient(err)
	}
	if err := s.writeState(ctx, o, snap, out.Warnings, consumed); err != nil {
		return res, asTransient(err)
	}
	return res, nil
}

// transition applies a finished stage's gate or successor.
func (s *stepper) transition(ctx context.Context, o *observed, snap *pipeline.Snapshot, stage pipeline.Stage, out StageResult, res *Result) error {
	next := out.Next
	if next == "" {
		next = stage.Next()
		if next == "" {
			return fmt.Errorf("stage %s finished without naming its successor", stage)
		}
		safety := snap.Classification != nil && snap.Classification.SafetyAffecting
		if s.gates().Mode(stage, safety) == pipeline.HumanGated {
			snap.Gate = &pipeline.GateRecord{Stage: stage, SWI: snap.CurrentSWI, Since: s.d.now(), Reason: out.Summary}
			res.Outcome = OutcomeWaiting
			return nil
		}
	}
	snap.Stage = next
	if next == pipeline.StageComplete {
		res.Outcome = OutcomeComplete
	}
	return s.postEntry(ctx, o, *snap, next, out.Summary)
}

func (s *stepper) gates() pipeline.GatePolicy {
	modes := map[string]pipeline.GateMode{}
	for k, v := range s.d.Config.Gates {
		modes[k] = pipeline.GateMode(v)
	}
	return pipeline.GatePolicy{Modes: modes}
}

// fail marks the pipeline failed with a structured report (ASSERT-PSM-006).
func (s *stepper) fail(ctx context.Context, o *observed, snap *pipeline.Snapshot, stage pipeline.Stage, reason string, cause error, consumed []string) (Result, error) {
	res := Result{Stage: string(pipeline.StageFailed), Action: "fail", Outcome: OutcomeFailed, Reason: reason}
	failure := audit.Failure{WorkItem: s.ref.Issue, Stage: string(stage), SWI: snap.CurrentSWI, Reason: reason}
	var esc *Escalation
	if errors.As(cause, &esc) {
		failure.Attempts = esc.Attempts
	}
	failure.Cost = &audit.CostSummary{Ledger: snap.Ledger, BudgetTokens: s.d.Config.Budgets.PipelineMaxTokens, BudgetUSD: s.d.Config.Budgets.PipelineMaxCostUSD}
	if _, _, err := upsert(ctx, s, o, audit.FailureKey(s.ref.Issue, string(stage)), audit.FailureReport(failure)); err != nil {
		return res, asTransient(err)
	}
	snap.Failure = &pipeline.FailureRecord{Stage: stage, SWI: snap.CurrentSWI, Reason: reason, At: s.d.now()}
	snap.Stage = pipeline.StageFailed
	snap.Gate = nil
	if err := s.writeState(ctx, o, *snap, nil, consumed); err != nil {
		return res, asTransient(err)
	}
	return res, &FailedError{Stage: stage, Reason: reason, Err: cause}
}

func reasonOf(err error) string {
	var esc *Escalation
	if errors.As(err, &esc) {
		return esc.Reason
	}
	return err.Error()
}

func attemptKey(snap pipeline.Snapshot, stage pipeline.Stage) string {
	if stage.PerSWI() && snap.CurrentSWI != "" {
		return "swi/" + snap.CurrentSWI + "/" + string(stage)
	}
	return string(stage)
}

// transitionEvent records where a finished stage led.
func transitionEvent(snap pipeline.Snapshot, stage pipeline.Stage, outcome StepOutcome) audit.Event {
	e := audit.Event{Kind: "transition", Stage: string(stage), SWI: snap.CurrentSWI}
	if outcome == OutcomeWaiting && snap.Gate != nil {
		e.Kind, e.Summary = "gate", fmt.Sprintf("%s finished; human gate waits for %s", stage, pipeline.LabelApprove)
		return e
	}
	e.Summary = fmt.Sprintf("%s → %s", stage, snap.Stage)
	return e
}

// postEvents posts the step's audit events as one comment, keyed by the
// stage attempt so a re-run of the same attempt edits it in place.
func (s *stepper) postEvents(ctx context.Context, o *observed, snap pipeline.Snapshot, stage pipeline.Stage, events *audit.Events) error {
	list := events.List()
	if len(list) == 0 {
		return nil
	}
	attempt := attemptKey(snap, stage)
	key := audit.EventsKey(s.ref.Issue, attempt, snap.Attempts[attempt])
	title := fmt.Sprintf("audit · %s attempt %d", attempt, snap.Attempts[attempt])
	_, _, err := upsert(ctx, s, o, key, audit.EventsComment(key, title, list))
	return err
}

// mostAdvanced returns the stage furthest along the pipeline order.
func mostAdvanced(stages []pipeline.Stage) pipeline.Stage {
	var best pipeline.Stage
	rank := map[pipeline.Stage]int{}
	for i, st := range pipeline.AllStages() {
		rank[st] = i
	}
	for _, st := range stages {
		if best == "" || rank[st] > rank[best] {
			best = st
		}
	}
	return best
}
