package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/pipeline"
)

// The write order of a step that acts, on which crash recovery rests (a
// crash between any two writes is repaired by simply running again):
//
//  1. lock: the processing label, then this run's claim comment;
//  2. the executor's artifacts (branches, commits, PRs, sub-issues,
//     comments), each found again by its key on a re-run;
//  3. the failure report, when the stage failed;
//  4. the status comment with the snapshot: from here on the step counts;
//  5. the claim comment becomes the step's record (stage entries, audit);
//  6. the labels, in one request, with the processing label gone.
//
// A crash before 4 repeats the step from the old snapshot; between 4 and
// 6 the next run finds labels out of step with the snapshot and repairs
// them; after 5 a processing label without a live claim holds other runs
// off until it is older than lock_timeout.

// run executes a DecisionRun verdict while holding the lock. It returns
// the step's record for the claim comment.
func (s *stepper) run(ctx context.Context, o *observed, v pipeline.Verdict) (Result, string, error) {
	ctx, events := audit.WithEvents(ctx)
	if len(o.labels.repaired) > 0 {
		events.Add(audit.Event{Kind: audit.KindRepair, Summary: "labels restored from the snapshot: " + strings.Join(o.labels.repaired, ", ")})
	}
	a := &action{res: Result{Action: StepAction(v.Action), Reason: v.Reason}, events: events,
		// An approval label is consumed by every run step: it was either
		// used to pass this gate or predates the gate the step may open.
		consumed: []string{pipeline.LabelApprove}}
	snap, err := s.begin(ctx, &o.wakeFacts, v, a)
	var noWay *FailedError
	if errors.As(err, &noWay) {
		// The table has no way on from where the item stands.
		res, err := s.finish(ctx, o, &snap, a, err)
		return res, s.stepRecord(res, a.entered, snap.CurrentSWI, events.List()), err
	}
	if err != nil {
		// Nothing was written yet: the next run starts over.
		return a.res, "", asTransient(err)
	}
	held, err := s.holdUnapproved(ctx, &o.wakeFacts, &snap, v, a)
	if err != nil {
		return a.res, "", asTransient(err)
	}
	if held {
		res, err := s.finish(ctx, o, &snap, a, nil)
		return res, s.stepRecord(res, a.entered, snap.CurrentSWI, events.List()), err
	}
	if handled, err := s.watchDesign(ctx, &o.wakeFacts, &snap, v, a); err != nil || handled {
		// A pause on an amended design, or the approved re-plan.
		res, err := s.finish(ctx, o, &snap, a, err)
		return res, s.stepRecord(res, a.entered, snap.CurrentSWI, events.List()), err
	}
	err = s.execute(ctx, &o.wakeFacts, &snap, a)
	if err == nil {
		err = s.pinDesign(ctx, &o.wakeFacts, &snap, a.stage)
	}
	res, err := s.finish(ctx, o, &snap, a, err)
	return res, s.stepRecord(res, a.entered, snap.CurrentSWI, events.List()), err
}

// action is what one acting step accumulates on its way.
type action struct {
	res      Result
	events   *audit.Events
	consumed []string
	entered  []pipeline.Stage
	stage    pipeline.Stage
	out      StageResult
	// attempted reports that the executor ran (its attempt was counted).
	attempted bool
}

// begin rebuilds or loads the snapshot and applies the verdict's action:
// resume, pass the gate or retry.
func (s *stepper) begin(ctx context.Context, o *wakeFacts, v pipeline.Verdict, a *action) (pipeline.Snapshot, error) {
	snap := o.snap
	if !o.obs.HasSnapshot {
		var err error
		if snap, err = s.rebuild(ctx, o); err != nil {
			return snap, err
		}
		snap.CommandsSeen = o.snap.CommandsSeen
	}
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
		delete(snap.TransientFailures, snap.Stage)
		a.consumed = append(a.consumed, pipeline.LabelRetry)
		a.events.Add(audit.Event{Kind: audit.KindTransition, Stage: string(snap.Stage), Summary: pipeline.LabelRetry + ": resume the failed stage"})
	case pipeline.ActionPassGate:
		gate := snap.Gate
		snap.Approvals = append(snap.Approvals, pipeline.Approval{Stage: gate.Stage, SWI: gate.SWI, By: o.obs.Approval.By, At: now, Via: o.obs.Approval.Via, EventID: o.obs.Approval.EventID, CommentID: o.obs.Approval.CommentID})
		a.events.Add(audit.Event{Kind: audit.KindGate, Stage: string(gate.Stage), SWI: gate.SWI,
			Summary: fmt.Sprintf("approved by @%s via %s", o.obs.Approval.By, o.obs.Approval.Via)})
		snap.Gate = nil
		if gate.Resume {
			// A pause inside the stage: it resumes where it stopped.
			snap.Stage = gate.Stage
			break
		}
		next, err := s.passGate(snap, gate.Stage)
		if err != nil {
			a.stage = gate.Stage
			return snap, &FailedError{Stage: gate.Stage, Reason: fmt.Sprintf("the approved gate after %s leads nowhere: %v", gate.Stage, err), Err: err}
		}
		snap.Stage = next
		a.entered = append(a.entered, snap.Stage)
	default:
		if snap.Stage == "" {
			snap.Stage = pipeline.StageIntake
			a.entered = append(a.entered, snap.Stage)
		}
	}
	a.stage = snap.Stage
	a.res.Stage = string(snap.Stage)
	return snap, nil
}

// rebuild starts a snapshot for a fresh item, or for one whose snapshot
// was lost, from the stage labels the bot itself applied.
func (s *stepper) rebuild(ctx context.Context, o *wakeFacts) (pipeline.Snapshot, error) {
	snap := pipeline.NewSnapshot(s.ref.Repo.String(), s.ref.Issue)
	stages, err := s.trustedStages(ctx, o.obs.Labels)
	if err != nil {
		return snap, err
	}
	// Several trusted stage labels: resume at the most advanced one rather
	// than restart; the label write at the end leaves exactly one.
	snap.Stage = mostAdvanced(stages)
	return snap, nil
}

// parentLabels are the labels a work item can carry.
func parentLabels() []string {
	names := []string{pipeline.LabelRun, pipeline.LabelProcessing, pipeline.LabelAwaitingReview,
		pipeline.LabelApprove, pipeline.LabelSafetyCritical, pipeline.LabelRetry}
	for _, st := range pipeline.AllStages() {
		names = append(names, pipeline.StageLabel(st))
	}
	return names
}

// execute validates the registry and runs the stage's executor.
func (s *stepper) execute(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, a *action) error {
	stage := a.stage
	if s.d.Registry != nil {
		if err := s.d.Registry.ValidateRegistry(ctx); err != nil {
			if isTransient(err) {
				return err
			}
			return &FailedError{Stage: stage, Reason: fmt.Sprintf("interface registry is invalid: %v", err), Err: err}
		}
	}
	ex := s.d.Executors[stage]
	if ex == nil {
		return &FailedError{Stage: stage, Reason: fmt.Sprintf("no executor is registered for stage %s", stage)}
	}
	// Entering the per-SWI loop: the machine, not code generation, names
	// the sub-work-item to work on.
	snap.EnterSWI(stage)
	snap.AddAttempt(stage, 1)
	a.attempted = true
	// The executor reads a copy; its decisions come back as out.Changes.
	view, err := snap.View()
	if err != nil {
		return &FailedError{Stage: stage, Reason: err.Error(), Err: err}
	}
	out, err := ex.Execute(ctx, StageInput{
		Repo: s.ref.Repo, Issue: o.issue, Stage: stage, Snapshot: view,
		Config: s.d.Config, RunID: s.d.RunID, Logger: s.d.logger().With("stage", stage, "sub_work_item", snap.CurrentSWI),
		BotLogin: s.d.BotLogin, Comments: o.comments, Ledger: pipeline.NewLedgerBook(snap),
	})
	if aerr := snap.Apply(out.Changes...); aerr != nil {
		return &FailedError{Stage: stage, Reason: aerr.Error(), Err: aerr}
	}
	if err != nil {
		return err
	}
	a.out = out
	a.res.Outcome = OutcomeAdvanced
	if out.Summary != "" {
		a.res.Reason = out.Summary
	}
	delete(snap.TransientFailures, stage)
	if out.Event != pipeline.EventProgress {
		if err := s.transition(snap, stage, out, a); err != nil {
			return err
		}
		a.events.Add(transitionEvent(*snap, stage, a.res.Outcome))
	}
	return nil
}

// finish is the step's one exit: it classifies the error and writes the
// state that follows — the new snapshot, a transient failure counted
// against stage_max_retries, or the failed pipeline with its report.
func (s *stepper) finish(ctx context.Context, o *observed, snap *pipeline.Snapshot, a *action, err error) (Result, error) {
	switch {
	case err == nil:
		if werr := s.writeState(ctx, o, *snap, a.out.Warnings, a.consumed); werr != nil {
			return a.res, asTransient(werr)
		}
		return a.res, nil
	case errors.Is(err, context.Canceled):
		return a.res, asTransient(err)
	case isTransient(err):
		return s.deferStep(ctx, o, snap, a, err)
	}
	return s.fail(ctx, o, snap, a, stepFailure{reason: reasonOf(err), cause: err})
}

// deferStep records a transient failure (a GitHub or LLM outage): the
// stage stays where it is and the next invocation tries again, until
// stage_max_retries invocations in a row failed this way.
func (s *stepper) deferStep(ctx context.Context, o *observed, snap *pipeline.Snapshot, a *action, err error) (Result, error) {
	if snap.TransientFailures == nil {
		snap.TransientFailures = map[pipeline.Stage]int{}
	}
	key := string(a.stage)
	snap.TransientFailures[a.stage]++
	n, limit := snap.TransientFailures[a.stage], s.d.Config.Budgets.StageMaxRetries
	if limit > 0 && n > limit {
		reason := fmt.Sprintf("%d invocations in a row failed with transient errors (stage_max_retries %d); last: %v", n, limit, err)
		return s.fail(ctx, o, snap, a, stepFailure{reason: reason, cause: err})
	}
	a.res.Outcome = OutcomeRetrying
	a.res.Reason = fmt.Sprintf("transient failure %d of %d; the next run retries: %v", n, limit, err)
	a.events.Add(audit.Event{Kind: audit.KindTransition, Stage: key, SWI: snap.CurrentSWI, Summary: a.res.Reason})
	if a.attempted {
		// An outage is not an attempt: attempts bound the LLM's tries.
		snap.AddAttempt(a.stage, -1)
	}
	msg := fmt.Sprintf("Transient failure %d of %d at stage %s; the next run retries.", n, limit, key)
	if werr := s.writeState(ctx, o, *snap, []string{msg}, nil); werr != nil {
		return a.res, asTransient(errors.Join(err, werr))
	}
	return a.res, asTransient(err)
}

// configurationError is a failure the repository's configuration causes
// and fixes (domain.NoServiceError, domain.HaltError): its report says
// what to configure rather than listing attempts that never ran.
type configurationError interface {
	error
	Configuration() string
}

// stepFailure is why a step fails the pipeline.
type stepFailure struct {
	// reason is the one line the report, the result, the snapshot's
	// failure record and the audit trail's transition give.
	reason string
	// cause is the error behind it: an escalation's attempts and a
	// configuration error's advice go in the report, and a *FailedError
	// is returned as it is.
	cause error
}

// fail marks the pipeline failed with a structured report (ASSERT-PSM-006).
func (s *stepper) fail(ctx context.Context, o *observed, snap *pipeline.Snapshot, a *action, f stepFailure) (Result, error) {
	reason, cause := f.reason, f.cause
	stage := a.stage
	a.events.Add(audit.Event{Kind: audit.KindTransition, Stage: string(stage), SWI: snap.CurrentSWI, Summary: "failed: " + reason})
	a.res = Result{Stage: string(pipeline.StageFailed), Action: ActionFail, Outcome: OutcomeFailed, Reason: reason}
	failure := audit.Failure{WorkItem: s.ref.Issue, Stage: string(stage), SWI: snap.CurrentSWI, Reason: reason}
	var esc *escalation.Error
	if errors.As(cause, &esc) {
		failure.Attempts = esc.Attempts
	}
	var cfg configurationError
	if errors.As(cause, &cfg) {
		failure.Configuration = cfg.Configuration()
	}
	failure.Cost = &audit.CostSummary{Ledger: snap.Ledger, SubWorkItems: snap.SubWorkItems, BudgetTokens: s.d.Config.Budgets.PipelineMaxTokens, BudgetUSD: s.d.Config.Budgets.PipelineMaxCostUSD}
	if _, _, err := upsert(ctx, s, &o.wakeFacts, audit.FailureKey(s.ref.Issue, string(stage)), audit.FailureReport(failure)); err != nil {
		return a.res, asTransient(err)
	}
	snap.Failure = &pipeline.FailureRecord{Stage: stage, SWI: snap.CurrentSWI, Reason: reason, At: s.d.now()}
	snap.Stage = pipeline.StageFailed
	snap.Gate = nil
	delete(snap.TransientFailures, stage)
	if err := s.writeState(ctx, o, *snap, nil, a.consumed); err != nil {
		return a.res, asTransient(err)
	}
	var fe *FailedError
	if errors.As(cause, &fe) {
		return a.res, fe
	}
	return a.res, &FailedError{Stage: stage, Reason: reason, Err: cause}
}

func reasonOf(err error) string {
	var esc *escalation.Error
	if errors.As(err, &esc) {
		return esc.Reason
	}
	var fe *FailedError
	if errors.As(err, &fe) {
		return fe.Reason
	}
	return err.Error()
}

// transitionEvent records where a finished stage led.
func transitionEvent(snap pipeline.Snapshot, stage pipeline.Stage, outcome StepOutcome) audit.Event {
	e := audit.Event{Kind: audit.KindTransition, Stage: string(stage), SWI: snap.CurrentSWI}
	if outcome == OutcomeWaiting && snap.Gate != nil {
		e.Kind, e.Summary = "gate", fmt.Sprintf("%s finished; human gate waits for %s", stage, pipeline.LabelApprove)
		return e
	}
	e.Summary = fmt.Sprintf("%s → %s", stage, snap.Stage)
	return e
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
