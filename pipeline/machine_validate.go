package pipeline

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Violation is one way a machine breaks the SASS contract. Subject names
// the machine, state, guard or transition at fault.
type Violation struct {
	Subject string
	Problem string
}

// Error implements error.
func (v *Violation) Error() string { return v.Subject + ": " + v.Problem }

// Validate checks SASS v0.1 conformance and returns every violation found,
// joined with errors.Join (each a *Violation), or nil.
func (m Machine) Validate() error {
	v := &machineCheck{m: m}
	v.states()
	v.start()
	v.guards()
	v.transitions()
	v.unusedGuards()
	v.reachability()
	v.coordinates()
	v.capabilities()
	return errors.Join(v.errs...)
}

// machineCheck runs Validate's checks in order, each a named step that
// adds violations and records what later steps read (the declared states
// and guards, the edges).
type machineCheck struct {
	m    Machine
	errs []error

	byID           map[StateID]State
	declaredGuards map[string]bool
	next           map[StateID][]StateID
	hasFailureEdge map[StateID]bool
}

func (v *machineCheck) add(subject, format string, args ...any) {
	v.errs = append(v.errs, &Violation{Subject: subject, Problem: fmt.Sprintf(format, args...)})
}

// states checks each state on its own: unique id, known kind and
// idempotence class, only exits terminal, operational states on a stage.
func (v *machineCheck) states() {
	v.byID = map[StateID]State{}
	for _, s := range v.m.States {
		subject := fmt.Sprintf("state %q", s.ID)
		if _, dup := v.byID[s.ID]; dup {
			v.add(subject, "declared more than once")
		}
		v.byID[s.ID] = s
		switch s.Kind {
		case KindCheckpoint, KindOperational, KindGate, KindFailure, KindExit, KindSide:
		default:
			v.add(subject, "unknown kind %q", s.Kind)
		}
		switch s.Idempotence {
		case SafeRepeat, RequiresCheckpoint, NonRepeatable:
		case "":
			v.add(subject, "has no idempotence class")
		default:
			v.add(subject, "unknown idempotence class %q", s.Idempotence)
		}
		if s.Kind == KindExit && !s.Terminal {
			v.add(subject, "is an exit but not terminal")
		}
		if s.Kind != KindExit && s.Terminal {
			v.add(subject, "is terminal but of kind %q; only exits may be terminal", s.Kind)
		}
		if s.Kind == KindOperational && !s.Stage.Valid() {
			v.add(subject, "operational state names unknown stage %q", s.Stage)
		}
		if s.Kind == KindGate && (!s.Stage.Valid() || s.GateKey == "") {
			// The engine settles a gate by the mode configured under its
			// key for the stage it follows.
			v.add(subject, "gate names no stage or configuration key (stage %q, key %q)", s.Stage, s.GateKey)
		}
	}
}

// start checks the SASS entry (wake_up) and that some exit is terminal.
func (v *machineCheck) start() {
	m := v.m
	if m.Start != StateWakeUp {
		v.add("machine "+m.ID, "start state is %q; SASS requires %q", m.Start, StateWakeUp)
	}
	if _, ok := v.byID[StateWakeUp]; !ok {
		v.add(fmt.Sprintf("state %q", StateWakeUp), "missing; SASS requires a wake_up checkpoint state")
	}
	terminals := 0
	for _, s := range m.States {
		if s.Kind == KindExit && s.Terminal {
			terminals++
		}
	}
	if terminals == 0 {
		v.add("machine "+m.ID, "has no terminal exit state")
	}
}

// guards checks that guard ids are unique and expressions non-empty.
func (v *machineCheck) guards() {
	v.declaredGuards = map[string]bool{}
	for _, g := range v.m.Guards {
		if v.declaredGuards[g.ID] {
			v.add(fmt.Sprintf("guard %q", g.ID), "declared more than once")
		}
		v.declaredGuards[g.ID] = true
		if strings.TrimSpace(g.Expr) == "" {
			v.add(fmt.Sprintf("guard %q", g.ID), "has an empty expression")
		}
	}
}

// transitions checks every edge (declared ends, nothing leaves an exit, a
// resolving guard, failure edges marked as such) and builds the edge list.
func (v *machineCheck) transitions() {
	v.next = map[StateID][]StateID{}
	v.hasFailureEdge = map[StateID]bool{}
	for _, t := range v.m.Transitions {
		subject := fmt.Sprintf("transition %s -> %s", t.From, t.To)
		from, fromOK := v.byID[t.From]
		to, toOK := v.byID[t.To]
		if !fromOK {
			v.add(subject, "source state %q is not declared", t.From)
		}
		if !toOK {
			v.add(subject, "target state %q is not declared", t.To)
		}
		if fromOK && from.Kind == KindExit {
			v.add(subject, "leaves exit state %q; exits have no outgoing transitions", t.From)
		}
		if !t.On.Known() {
			v.add(subject, "event %q is not one the engine or wake_up reports", t.On)
		}
		switch {
		case t.GuardRef == "":
			v.add(subject, "has no guard_ref")
		case !v.declaredGuards[t.GuardRef]:
			v.add(subject, "guard_ref %q does not resolve to a declared guard", t.GuardRef)
		}
		intoFailure := (toOK && to.Kind == KindFailure) || t.To == StateExitFailed
		if intoFailure && !t.Failure {
			v.add(subject, "leads to failure state %q but is not marked as a failure transition", t.To)
		}
		if t.Failure && toOK && !intoFailure && to.Kind != KindExit {
			v.add(subject, "is marked as a failure transition but leads to %s state %q", to.Kind, t.To)
		}
		if t.Failure {
			v.hasFailureEdge[t.From] = true
		}
		v.next[t.From] = append(v.next[t.From], t.To)
	}
}

// unusedGuards reports guards no transition references.
func (v *machineCheck) unusedGuards() {
	used := map[string]bool{}
	for _, t := range v.m.Transitions {
		if t.GuardRef != "" && v.declaredGuards[t.GuardRef] {
			used[t.GuardRef] = true
		}
	}
	for _, g := range v.m.Guards {
		if !used[g.ID] {
			v.add(fmt.Sprintf("guard %q", g.ID), "is declared but no transition references it")
		}
	}
}

// reachability checks that every state is reachable from the start, every
// non-terminal state can reach a terminal exit, and every operational
// state has a failure edge.
func (v *machineCheck) reachability() {
	m := v.m
	reachable := reach([]StateID{m.Start}, v.next)
	reverse := map[StateID][]StateID{}
	var exits []StateID
	for from, tos := range v.next {
		for _, to := range tos {
			reverse[to] = append(reverse[to], from)
		}
	}
	for _, s := range m.States {
		if s.Terminal && s.Kind == KindExit {
			exits = append(exits, s.ID)
		}
	}
	canExit := reach(exits, reverse)
	for _, s := range m.States {
		subject := fmt.Sprintf("state %q", s.ID)
		if _, ok := v.byID[m.Start]; ok && !reachable[s.ID] {
			v.add(subject, "is not reachable from %s", m.Start)
		}
		if !s.Terminal && !canExit[s.ID] {
			v.add(subject, "cannot reach a terminal exit")
		}
		if s.Kind == KindOperational && !v.hasFailureEdge[s.ID] {
			v.add(subject, "operational state has no failure transition")
		}
	}
}

// coordinates checks that the SASS coordinates are persisted snapshot
// fields.
func (v *machineCheck) coordinates() {
	fields := snapshotFields()
	if len(v.m.Coordinates) == 0 {
		v.add("machine "+v.m.ID, "declares no coordinates")
	}
	for _, c := range v.m.Coordinates {
		if !fields[c] {
			v.add(fmt.Sprintf("coordinate %q", c), "is not a field of the persisted snapshot")
		}
	}
}

// capabilities checks that no capability is both allowed and denied.
func (v *machineCheck) capabilities() {
	denied := map[string]bool{}
	for _, d := range v.m.Capabilities.Deny {
		denied[d] = true
	}
	for _, a := range v.m.Capabilities.Allow {
		if denied[a] {
			v.add(fmt.Sprintf("capability %q", a), "is both allowed and denied")
		}
	}
}

// reach returns every state reachable from roots along edges.
func reach(roots []StateID, edges map[StateID][]StateID) map[StateID]bool {
	seen := map[StateID]bool{}
	queue := append([]StateID(nil), roots...)
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		queue = append(queue, edges[id]...)
	}
	return seen
}

// snapshotFields returns the JSON names of Snapshot's fields.
func snapshotFields() map[string]bool {
	fields := map[string]bool{}
	t := reflect.TypeFor[Snapshot]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			fields[name] = true
		}
	}
	return fields
}
