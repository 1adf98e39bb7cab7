package engine

import (
	"fmt"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/pipeline"
)

// The machine drives the pipeline: an executor reports an event, the
// transition table (pipeline.Machine) names where it leads, and the
// guards of that table — gate modes and approvals, safety-critical
// gating, the remediation-cycle limit, the remaining sub-work-items —
// decide between the candidates. Nothing here knows the stage order, so
// a table variant (a skipped stage) runs unchanged.

// machine returns the table the work item follows: the process's table
// without the stages the snapshot records as skipped. A recorded skip
// the table cannot drop is a failure, never a silent full path.
func (s *stepper) machine(snap pipeline.Snapshot) (pipeline.Machine, error) {
	m := pipeline.StateMachine()
	if s.d.Machine != nil {
		m = *s.d.Machine
	}
	v, err := m.Variant(snap.Skipped)
	if err != nil {
		return m, fmt.Errorf("machine of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	return v, nil
}

// choosePath records, once intake classified the item, the stages its
// path skips under [pipeline] skip_design_for: a small bug fix goes to
// planning without a specification or interface PR.
func (s *stepper) choosePath(snap *pipeline.Snapshot, stage pipeline.Stage) {
	if stage != pipeline.StageIntake {
		return
	}
	p := pipeline.SkipPolicy{MaxComplexity: s.d.Config.Pipeline.SkipDesignMaxComplexity}
	for _, t := range s.d.Config.Pipeline.SkipDesignFor {
		p.Types = append(p.Types, classify.Type(t))
	}
	snap.Skipped = p.DesignSkip(snap.Classification)
}

// guardInput is what the table's guards read after stage ran.
func (s *stepper) guardInput(snap pipeline.Snapshot) pipeline.GuardInput {
	return pipeline.GuardInput{Snapshot: snap, MaxRemediationCycles: s.d.Config.Budgets.ReviewMaxRemediationCycles}
}

// transition follows a finished stage's event through the table: into the
// next stage, through a gate that passes, to a gate that waits, or to the
// complete exit. A refused guard or an event the table does not know is a
// failure of the stage.
func (s *stepper) transition(snap *pipeline.Snapshot, stage pipeline.Stage, out StageResult, a *action) error {
	s.choosePath(snap, stage)
	snap.LeaveSWI(out.Event)
	m, err := s.machine(*snap)
	if err != nil {
		return &FailedError{Stage: stage, Reason: err.Error(), Err: err}
	}
	t, err := m.Fire(pipeline.StateForStage(stage), out.Event, s.guardInput(*snap))
	if err != nil {
		return &FailedError{Stage: stage, Reason: fmt.Sprintf("%s reported %q: %v", stage, out.Event, err), Err: err}
	}
	to, ok := m.State(t.To)
	if !ok {
		return &FailedError{Stage: stage, Reason: fmt.Sprintf("machine: transition %s -> %s leads to an undeclared state", t.From, t.To)}
	}
	if to.Kind == pipeline.KindGate {
		in := s.guardInput(*snap)
		in.GateMode = s.gates().ModeOf(to.GateKey, to.Stage, safetyCritical(*snap))
		if t, err = m.Settle(to.ID, in); err != nil {
			return &FailedError{Stage: stage, Reason: err.Error(), Err: err}
		}
		if t.On == pipeline.EventGatePending {
			snap.Gate = &pipeline.GateRecord{Stage: stage, SWI: snap.CurrentSWI, Since: s.d.now(), Reason: out.Summary}
			a.res.Outcome = OutcomeWaiting
			return nil
		}
		if to, ok = m.State(t.To); !ok {
			return &FailedError{Stage: stage, Reason: fmt.Sprintf("machine: gate %s leads to undeclared state %s", t.From, t.To)}
		}
	}
	next, err := stageOf(to)
	if err != nil {
		return &FailedError{Stage: stage, Reason: err.Error(), Err: err}
	}
	snap.Stage = next
	if next == pipeline.StageComplete {
		a.res.Outcome = OutcomeComplete
	}
	a.entered = append(a.entered, next)
	return nil
}

// passGate returns the stage a waiting gate after stage leads to once a
// writer approved it.
func (s *stepper) passGate(snap pipeline.Snapshot, stage pipeline.Stage) (pipeline.Stage, error) {
	m, err := s.machine(snap)
	if err != nil {
		return "", err
	}
	gate := pipeline.GateState(stage)
	g, ok := m.State(gate)
	if !ok {
		return "", fmt.Errorf("machine: no gate state %s for the approved stage %s", gate, stage)
	}
	in := s.guardInput(snap)
	in.GateMode, in.Approved = s.gates().ModeOf(g.GateKey, g.Stage, safetyCritical(snap)), true
	t, err := m.Settle(gate, in)
	if err != nil {
		return "", err
	}
	to, _ := m.State(t.To)
	return stageOf(to)
}

// stageOf is the stage a state stands for: an operational state's stage,
// or complete for the complete exit.
func stageOf(st pipeline.State) (pipeline.Stage, error) {
	switch {
	case st.Kind == pipeline.KindOperational:
		return st.Stage, nil
	case st.ID == pipeline.StateExitComplete:
		return pipeline.StageComplete, nil
	}
	return "", fmt.Errorf("machine: state %s is not a stage to enter", st.ID)
}

func safetyCritical(snap pipeline.Snapshot) bool {
	return snap.Classification != nil && snap.Classification.SafetyAffecting
}

func (s *stepper) gates() pipeline.GatePolicy {
	modes := map[string]pipeline.GateMode{}
	for k, v := range s.d.Config.Gates {
		modes[k] = pipeline.GateMode(v)
	}
	return pipeline.GatePolicy{Modes: modes}
}
