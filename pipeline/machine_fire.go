package pipeline

import (
	"fmt"
	"slices"
	"strings"
)

// Event is what happened in a state: an executor's report on its stage
// (EventDone, EventRemediate, EventNextSWI, EventAllDone; an error is
// EventEscalate), a gate's verdict, or wake_up's decision. The machine's
// transition table, not the executor, decides where an event leads.
type Event string

// Events. EventProgress is the zero value: the stage made progress and
// has more to do, so the item stays where it is and no transition fires.
const (
	EventProgress    Event = ""
	EventDone        Event = "stage_done"
	EventRemediate   Event = "remediate"
	EventNextSWI     Event = "next_swi"
	EventAllDone     Event = "all_done"
	EventEscalate    Event = "escalate"
	EventGatePassed  Event = "gate_passed"
	EventGatePending Event = "gate_pending"
	EventNoOp        Event = "no_op"
	EventTerminal    Event = "terminal"
	EventResume      Event = "resume"
	EventResumeGate  Event = "resume_gate"
	EventHalt        Event = "halt"
	// EventRevise: wake_up found review feedback awaiting an answer on
	// one of the item's open PRs (an event, /cogworks fix or the cron).
	EventRevise Event = "revise"
	// EventRevised: a revision cycle committed and answered every thread.
	EventRevised Event = "revised"
	// EventRevisionStopped: a cycle hit [revision] max_cycles or changed
	// nothing, answered every thread with why and escalated.
	EventRevisionStopped Event = "revision_stopped"
	// EventCIInfrastructure: CI on the PR failed on the infrastructure
	// only; its failed jobs were re-run once, or it was reported. No
	// cycle was spent.
	EventCIInfrastructure Event = "ci_infrastructure"
	// EventAmended: a step past planning found the specification or
	// interface files changed from the digests the plan was made from,
	// and a writer approved the amended text (design.go).
	EventAmended Event = "spec_amended"
	// EventReplanned: the re-plan filed the new and changed
	// sub-work-items and told the obsolete ones; the rest are untouched.
	EventReplanned Event = "replanned"
)

// Known reports whether a transition may be labelled with e.
func (e Event) Known() bool {
	switch e {
	case EventDone, EventRemediate, EventNextSWI, EventAllDone, EventEscalate,
		EventGatePassed, EventGatePending, EventNoOp, EventTerminal, EventResume, EventResumeGate, EventHalt,
		EventRevise, EventRevised, EventRevisionStopped, EventCIInfrastructure, EventAmended, EventReplanned:
		return true
	}
	return false
}

// DefaultRemediationCycles bounds the code-generation loops of one
// sub-work-item when the configuration sets no limit.
const DefaultRemediationCycles = 3

// RemediationLimit is the effective remediation-cycle limit for the
// configured budgets.review_max_remediation_cycles.
func RemediationLimit(configured int) int {
	if configured <= 0 {
		return DefaultRemediationCycles
	}
	return configured
}

// GuardInput is what the engine's guards read: the snapshot as the
// executor left it, the effective mode of the gate being settled, whether
// a valid approval passed it, and the configured limits.
type GuardInput struct {
	Snapshot Snapshot
	// GateMode is the effective mode (safety-critical gating applied) of
	// the gate being settled; ignored elsewhere.
	GateMode GateMode
	// Approved reports that a write+ user's approval passed the gate.
	Approved bool
	// MaxRemediationCycles is budgets.review_max_remediation_cycles.
	MaxRemediationCycles int
	// MaxRevisionCycles is [revision] max_cycles, effective.
	MaxRevisionCycles int
}

// TransitionError reports that no transition (or more than one) out of a
// state matches an event: the table and the executors disagree, or a
// guard such as the remediation limit refused.
type TransitionError struct {
	From StateID
	On   Event
	// Refused lists the guards of matching transitions that did not hold.
	Refused []string
	// Ambiguous lists the targets when more than one guard held.
	Ambiguous []StateID
}

// Error implements error.
func (e *TransitionError) Error() string {
	switch {
	case len(e.Ambiguous) > 0:
		return fmt.Sprintf("machine: %s on %q: guards of several transitions hold (%v)", e.From, e.On, e.Ambiguous)
	case len(e.Refused) > 0:
		return fmt.Sprintf("machine: %s on %q: no guard holds (%s)", e.From, e.On, strings.Join(e.Refused, ", "))
	}
	return fmt.Sprintf("machine: %s has no transition on %q", e.From, e.On)
}

// Fire returns the transition event on takes out of state from: the one
// whose guard holds for in.
func (m Machine) Fire(from StateID, on Event, in GuardInput) (Transition, error) {
	return m.choose(from, on, in, func(t Transition) bool { return t.On == on })
}

// Settle returns the transition a gate takes: passed or pending, as its
// guards decide for in.
func (m Machine) Settle(gate StateID, in GuardInput) (Transition, error) {
	return m.choose(gate, "", in, func(t Transition) bool { return !t.Failure })
}

func (m Machine) choose(from StateID, on Event, in GuardInput, match func(Transition) bool) (Transition, error) {
	guards := make(map[string]Guard, len(m.Guards))
	for _, g := range m.Guards {
		guards[g.ID] = g
	}
	var held []Transition
	var refused []string
	for _, t := range m.Transitions {
		if t.From != from || !match(t) {
			continue
		}
		g, ok := guards[t.GuardRef]
		if !ok {
			refused = append(refused, t.GuardRef+" (undeclared)")
			continue
		}
		if g.Holds != nil && !g.Holds(in) {
			refused = append(refused, g.ID)
			continue
		}
		held = append(held, t)
	}
	switch len(held) {
	case 1:
		return held[0], nil
	case 0:
		return Transition{}, &TransitionError{From: from, On: on, Refused: refused}
	}
	e := &TransitionError{From: from, On: on}
	for _, t := range held {
		e.Ambiguous = append(e.Ambiguous, t.To)
	}
	return Transition{}, e
}

// Skip returns a copy of m without stage st: the edges that led into its
// state lead where it would have passed on (through its gate, if any), and
// the state, its gate and the guards only they used are gone. A later
// bug-fix path skips architecture and interface-design this way. The
// result is validated.
func (m Machine) Skip(st Stage) (Machine, error) {
	s := StateForStage(st)
	if state, ok := m.State(s); !ok || state.Kind != KindOperational {
		return m, fmt.Errorf("skip %s: no operational state %q", st, s)
	}
	gone := map[StateID]bool{s: true}
	forward, err := m.Fire(s, EventDone, GuardInput{})
	if err != nil {
		return m, fmt.Errorf("skip %s: %w", st, err)
	}
	to := forward.To
	if g, _ := m.State(to); g.Kind == KindGate {
		gone[to] = true
		passed, err := m.Fire(to, EventGatePassed, GuardInput{GateMode: AutoProceed})
		if err != nil {
			return m, fmt.Errorf("skip %s: %w", st, err)
		}
		to = passed.To
	}
	out := m
	out.States = slices.DeleteFunc(slices.Clone(m.States), func(x State) bool { return gone[x.ID] })
	out.Transitions = nil
	for _, t := range m.Transitions {
		switch {
		case gone[t.From]:
			continue
		case gone[t.To] && t.From == StateWakeUp:
			// Nothing rests in a skipped state, so nothing resumes there.
			continue
		case gone[t.To]:
			t.To = to
		}
		out.Transitions = append(out.Transitions, t)
	}
	used := map[string]bool{}
	for _, t := range out.Transitions {
		used[t.GuardRef] = true
	}
	out.Guards = slices.DeleteFunc(slices.Clone(m.Guards), func(g Guard) bool { return !used[g.ID] })
	if err := out.Validate(); err != nil {
		return m, fmt.Errorf("skip %s: %w", st, err)
	}
	return out, nil
}

// gatePasses: the gate's mode is auto-proceed, or a valid approval came.
func gatePasses(in GuardInput) bool { return in.GateMode == AutoProceed || in.Approved }

// withinRemediationLimit: the loop back to code generation that the
// executor just counted is within the limit.
func withinRemediationLimit(in GuardInput) bool {
	rec := in.Snapshot.SubWorkItem(in.Snapshot.CurrentSWI)
	if rec == nil {
		return false
	}
	n := rec.RemediationCycles
	return n >= 1 && n <= RemediationLimit(in.MaxRemediationCycles)
}

// remainingSWIs counts the planned sub-work-items not yet completed.
func remainingSWIs(s Snapshot) int {
	n := 0
	for _, r := range s.SubWorkItems {
		if r.Status != SWICompleted {
			n++
		}
	}
	return n
}
