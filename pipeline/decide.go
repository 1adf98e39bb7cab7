package pipeline

import "fmt"

// Decision is the outcome of wake_up (docs/spec.md §3). Only DecisionRun writes.
type Decision string

// Decisions.
const (
	DecisionNotTriggered Decision = "not_triggered"
	DecisionBackedOff    Decision = "backed_off"
	DecisionTerminal     Decision = "terminal"
	DecisionWaiting      Decision = "waiting"
	DecisionRun          Decision = "run"
)

// Action is what a DecisionRun step does.
type Action string

// Actions.
const (
	// ActionExecute runs the current stage's executor.
	ActionExecute Action = "execute"
	// ActionPassGate records an approval, enters the next stage and runs it.
	ActionPassGate Action = "pass_gate"
	// ActionRetry resumes a failed pipeline at the failed stage.
	ActionRetry Action = "retry"
)

// Observation is everything wake_up read, already decoded.
type Observation struct {
	Labels      LabelSet
	Snapshot    Snapshot
	HasSnapshot bool
	Lock        LockState
	// Approval is the evaluation of a waiting gate; ignored otherwise.
	Approval ApprovalVerdict
}

// Verdict is the next-action decision.
type Verdict struct {
	Decision Decision
	Action   Action
	// Stage is the stage the work item is at (before the action).
	Stage  Stage
	Reason string
}

// CurrentStage returns where the work item stands: the snapshot is
// authoritative; without it the stage label is used (state rebuilt from
// labels); with neither the item is fresh ("").
func (o Observation) CurrentStage() (Stage, error) {
	if o.HasSnapshot && o.Snapshot.Stage != "" {
		return o.Snapshot.Stage, nil
	}
	return o.Labels.Stage()
}

// Decide is wake_up's deterministic branch: resume, restart or exit.
func Decide(o Observation) Verdict {
	if !o.Labels.Run {
		return Verdict{Decision: DecisionNotTriggered, Reason: "issue has no " + LabelRun + " label"}
	}
	stage, err := o.CurrentStage()
	if err != nil {
		return Verdict{Decision: DecisionRun, Action: ActionExecute, Reason: fmt.Sprintf("repair labels: %v", err)}
	}
	if o.Lock == LockFresh {
		return Verdict{Decision: DecisionBackedOff, Stage: stage, Reason: "another run holds " + LabelProcessing}
	}
	if o.HasSnapshot && o.Snapshot.Stopped != nil {
		return Verdict{Decision: DecisionWaiting, Stage: stage,
			Reason: fmt.Sprintf("stopped by %s; /cogworks retry or applying %s again resumes", o.Snapshot.Stopped.By, LabelRun)}
	}
	switch {
	case stage == StageComplete:
		return Verdict{Decision: DecisionTerminal, Stage: stage, Reason: "pipeline complete"}
	case stage == StageFailed && o.Labels.Retry:
		return Verdict{Decision: DecisionRun, Action: ActionRetry, Stage: stage, Reason: LabelRetry + " requested"}
	case stage == StageFailed:
		return Verdict{Decision: DecisionTerminal, Stage: stage, Reason: "pipeline failed; apply " + LabelRetry + " to resume"}
	}
	if o.HasSnapshot && o.Snapshot.Gate != nil {
		if o.Approval.Approved {
			return Verdict{Decision: DecisionRun, Action: ActionPassGate, Stage: stage,
				Reason: fmt.Sprintf("gate after %s approved by %s", o.Snapshot.Gate.Stage, o.Approval.By)}
		}
		return Verdict{Decision: DecisionWaiting, Stage: stage,
			Reason: fmt.Sprintf("gate after %s waits for %s from a user with write permission", o.Snapshot.Gate.Stage, LabelApprove)}
	}
	if stage == "" {
		return Verdict{Decision: DecisionRun, Action: ActionExecute, Stage: StageIntake, Reason: "fresh work item enters intake"}
	}
	return Verdict{Decision: DecisionRun, Action: ActionExecute, Stage: stage, Reason: "resume " + string(stage)}
}
