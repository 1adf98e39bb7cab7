package pipeline

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestStateMachineValidates(t *testing.T) {
	require.NoError(t, StateMachine().Validate())
}

func TestStateMachineShape(t *testing.T) {
	m := StateMachine()
	assert.Equal(t, StateWakeUp, m.Start)
	intake, _ := m.State("intake")
	planning, _ := m.State("planning")
	assert.Equal(t, RequiresCheckpoint, intake.Idempotence)
	assert.Equal(t, RequiresCheckpoint, planning.Idempotence)
	assert.Contains(t, m.Capabilities.Deny, "pulls.merge")
	assert.NotContains(t, m.Capabilities.Allow, "pulls.merge")
}

// executorEvents are the events a stage executor may report (an error is
// EventEscalate).
var executorEvents = []Event{EventDone, EventRemediate, EventNextSWI, EventAllDone, EventEscalate}

// TestStateMachineOperationalStates checks every operational state against
// the table itself: one way on when done, an explicit failure, a resume
// from wake_up, and only events an executor can report.
func TestStateMachineOperationalStates(t *testing.T) {
	m := StateMachine()
	var ops int
	for _, s := range m.States {
		if s.Kind != KindOperational {
			continue
		}
		ops++
		assert.Equal(t, StateForStage(s.Stage), s.ID)
		var done int
		for _, tr := range m.Transitions {
			if tr.From != s.ID {
				continue
			}
			assert.Contains(t, executorEvents, tr.On, "%s -> %s on %q: no executor reports it", tr.From, tr.To, tr.On)
			if tr.On == EventDone {
				done++
			}
			if tr.On == EventEscalate {
				assert.Equal(t, StateFailure, tr.To)
			}
		}
		if s.Stage != StageIntegration {
			// Integration ends with next_swi or all_done instead.
			assert.Equal(t, 1, done, "%s has one way on when done", s.ID)
		}
		assert.True(t, hasEdge(m, StateWakeUp, s.ID), "wake_up resumes %s", s.ID)
		_, err := m.Fire(s.ID, EventEscalate, GuardInput{})
		assert.NoError(t, err, "%s fails explicitly", s.ID)
	}
	assert.Equal(t, len(AllStages())-2, ops, "every non-terminal stage has a state")
}

// TestStateMachineMainPath follows the table from intake with every gate
// open: it visits every stage once, in pipeline order, and completes.
func TestStateMachineMainPath(t *testing.T) {
	m := StateMachine()
	in := GuardInput{GateMode: AutoProceed}
	var visited []Stage
	at := StateForStage(StageIntake)
	for range len(m.States) {
		s, ok := m.State(at)
		require.True(t, ok, at)
		if s.Kind != KindOperational {
			break
		}
		visited = append(visited, s.Stage)
		on := EventDone
		if s.Stage == StageIntegration {
			on = EventAllDone
		}
		tr, err := m.Fire(at, on, in)
		require.NoError(t, err)
		if next, _ := m.State(tr.To); next.Kind == KindGate {
			tr, err = m.Settle(next.ID, in)
			require.NoError(t, err)
			require.Equal(t, EventGatePassed, tr.On)
		}
		at = tr.To
	}
	assert.Equal(t, AllStages()[:8], visited)
	assert.Equal(t, StateExitComplete, at)
}

// TestStateMachineGates: each gate follows the stage it names, is keyed
// as configured, passes on auto-proceed or approval and waits otherwise.
func TestStateMachineGates(t *testing.T) {
	m := StateMachine()
	var gates []Stage
	for _, s := range m.States {
		if s.Kind != KindGate {
			continue
		}
		gates = append(gates, s.Stage)
		assert.Equal(t, GateState(s.Stage), s.ID)
		assert.Equal(t, GateKey(s.Stage), s.GateKey)
		tr, err := m.Fire(StateForStage(s.Stage), EventDone, GuardInput{})
		require.NoError(t, err)
		assert.Equal(t, s.ID, tr.To, "%s leads into its gate", s.Stage)

		tests := []struct {
			mode     GateMode
			approved bool
			want     Event
		}{
			{AutoProceed, false, EventGatePassed},
			{HumanGated, false, EventGatePending},
			{HumanGated, true, EventGatePassed},
		}
		for _, tt := range tests {
			tr, err := m.Settle(s.ID, GuardInput{GateMode: tt.mode, Approved: tt.approved})
			require.NoError(t, err)
			assert.Equal(t, tt.want, tr.On, "%s mode %s approved %v", s.ID, tt.mode, tt.approved)
			to, _ := m.State(tr.To)
			if tt.want == EventGatePending {
				assert.Equal(t, StateExitWaiting, tr.To)
			} else {
				assert.Equal(t, KindOperational, to.Kind)
			}
		}
		assert.True(t, hasEdge(m, StateWakeUp, s.ID), "an approval resumes %s", s.ID)
	}
	assert.Equal(t, []Stage{StageIntake, StageArchitecture, StageInterfaceDesign, StagePlanning, StageReview}, gates)
}

func hasEdge(m Machine, from, to StateID) bool {
	return slices.ContainsFunc(m.Transitions, func(t Transition) bool { return t.From == from && t.To == to })
}

func TestStateForStage(t *testing.T) {
	assert.Equal(t, StateID("interface-design"), StateForStage(StageInterfaceDesign))
	assert.Equal(t, StateExitComplete, StateForStage(StageComplete))
	assert.Equal(t, StateExitFailed, StateForStage(StageFailed))
	assert.Equal(t, StateID(""), StateForStage("bogus"))
}

func TestStateForSnapshot(t *testing.T) {
	s := NewSnapshot("a/b", 1)
	assert.Equal(t, StateWakeUp, StateForSnapshot(s))
	s.Stage = StageCodeGeneration
	assert.Equal(t, StateID("code-generation"), StateForSnapshot(s))
	s.Stage, s.Gate = StageArchitecture, &GateRecord{Stage: StageArchitecture}
	assert.Equal(t, StateID("gate_architecture"), StateForSnapshot(s))
	s.Stage, s.Gate = StageFailed, nil
	assert.Equal(t, StateExitFailed, StateForSnapshot(s))
}

// mutate returns a copy of the valid machine with f applied.
func mutate(f func(m *Machine)) Machine {
	m := StateMachine()
	m.States = slices.Clone(m.States)
	m.Guards = slices.Clone(m.Guards)
	m.Transitions = slices.Clone(m.Transitions)
	f(&m)
	return m
}

func removeState(m *Machine, id StateID) {
	m.States = slices.DeleteFunc(m.States, func(s State) bool { return s.ID == id })
}

func setState(m *Machine, id StateID, f func(s *State)) {
	for i := range m.States {
		if m.States[i].ID == id {
			f(&m.States[i])
		}
	}
}

func TestValidateRejectsBrokenMachines(t *testing.T) {
	tests := []struct {
		name string
		m    Machine
		want []string
	}{
		{"start is not wake_up", mutate(func(m *Machine) { m.Start = "intake" }),
			[]string{`start state is "intake"; SASS requires "wake_up"`}},
		{"wake_up missing", mutate(func(m *Machine) { removeState(m, StateWakeUp) }),
			[]string{`state "wake_up": missing`, `transition wake_up -> intake: source state "wake_up" is not declared`}},
		{"no terminal exit", mutate(func(m *Machine) {
			for i := range m.States {
				if m.States[i].Kind == KindExit {
					m.States[i].Kind = KindGate
					m.States[i].Terminal = false
				}
			}
		}), []string{"has no terminal exit state", `state "failure": cannot reach a terminal exit`}},
		{"exit not terminal", mutate(func(m *Machine) { setState(m, StateExitWaiting, func(s *State) { s.Terminal = false }) }),
			[]string{`state "exit_waiting": is an exit but not terminal`}},
		{"non-exit terminal", mutate(func(m *Machine) { setState(m, "review", func(s *State) { s.Terminal = true }) }),
			[]string{`state "review": is terminal but of kind "operational"`}},
		{"exit with outgoing transition", mutate(func(m *Machine) {
			m.Transitions = append(m.Transitions, Transition{From: StateExitComplete, To: "intake", GuardRef: "guard_resume_intake"})
		}), []string{`transition exit_complete -> intake: leaves exit state "exit_complete"`}},
		{"unguarded transition", mutate(func(m *Machine) {
			m.Transitions = append(m.Transitions, Transition{From: "planning", To: "review"})
		}), []string{"transition planning -> review: has no guard_ref"}},
		{"unresolved guard", mutate(func(m *Machine) { m.Transitions[0].GuardRef = "guard_nope" }),
			[]string{`guard_ref "guard_nope" does not resolve to a declared guard`}},
		{"dropped guard declaration", mutate(func(m *Machine) { m.Guards = m.Guards[1:] }),
			[]string{"does not resolve to a declared guard"}},
		{"unused guard", mutate(func(m *Machine) { m.Guards = append(m.Guards, Guard{ID: "guard_spare", Expr: "true"}) }),
			[]string{`guard "guard_spare": is declared but no transition references it`}},
		{"failure transition not marked", mutate(func(m *Machine) {
			for i := range m.Transitions {
				if m.Transitions[i].To == StateFailure && m.Transitions[i].From == "architecture" {
					m.Transitions[i].Failure = false
				}
			}
		}), []string{`transition architecture -> failure: leads to failure state "failure" but is not marked`}},
		{"failure edge dropped", mutate(func(m *Machine) {
			m.Transitions = slices.DeleteFunc(m.Transitions, func(t Transition) bool { return t.From == "planning" && t.Failure })
		}), []string{`state "planning": operational state has no failure transition`, `guard "guard_planning_failed": is declared but`}},
		{"missing idempotence", mutate(func(m *Machine) { setState(m, "review", func(s *State) { s.Idempotence = "" }) }),
			[]string{`state "review": has no idempotence class`}},
		{"unknown kind and idempotence", mutate(func(m *Machine) {
			setState(m, "review", func(s *State) { s.Kind, s.Idempotence = "weird", "maybe" })
		}), []string{`state "review": unknown kind "weird"`, `unknown idempotence class "maybe"`}},
		{"unreachable state", mutate(func(m *Machine) {
			m.States = append(m.States, State{ID: "island", Kind: KindGate, Idempotence: SafeRepeat})
		}), []string{`state "island": is not reachable from wake_up`, `state "island": cannot reach a terminal exit`}},
		{"dead end", mutate(func(m *Machine) {
			m.States = append(m.States, State{ID: "sink", Kind: KindGate, Idempotence: SafeRepeat})
			m.Transitions = append(m.Transitions, Transition{From: "planning", To: "sink", GuardRef: "guard_planning_done"})
		}), []string{`state "sink": cannot reach a terminal exit`}},
		{"duplicate state", mutate(func(m *Machine) { m.States = append(m.States, m.States[1]) }),
			[]string{`state "intake": declared more than once`}},
		{"unknown target", mutate(func(m *Machine) { m.Transitions[0].To = "nowhere" }),
			[]string{`target state "nowhere" is not declared`}},
		{"bad coordinate", mutate(func(m *Machine) { m.Coordinates = append(m.Coordinates, "workspace_root") }),
			[]string{`coordinate "workspace_root": is not a field of the persisted snapshot`}},
		{"transition without a known event", mutate(func(m *Machine) { m.Transitions[0].On = "teleport" }),
			[]string{`transition wake_up -> exit_waiting: event "teleport" is not one the engine or wake_up reports`}},
		{"gate without configuration key", mutate(func(m *Machine) { setState(m, "gate_planning", func(s *State) { s.GateKey = "" }) }),
			[]string{`state "gate_planning": gate names no stage or configuration key`}},
		{"capability allowed and denied", mutate(func(m *Machine) {
			m.Capabilities.Allow = append(slices.Clone(m.Capabilities.Allow), "pulls.merge")
		}), []string{`capability "pulls.merge": is both allowed and denied`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.Validate()
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
			var v *Violation
			assert.True(t, errors.As(err, &v), "violations are typed")
		})
	}
}

// TestValidateMutationProperty: random SASS-breaking mutations of the
// valid machine are always rejected and name what they broke; the
// unmutated machine is always accepted.
func TestValidateMutationProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := mutate(func(*Machine) {})
		kind := rapid.IntRange(0, 5).Draw(t, "mutation")
		var want string
		switch kind {
		case 0: // none
		case 1: // drop a guard declaration
			i := rapid.IntRange(0, len(m.Guards)-1).Draw(t, "guard")
			want = m.Guards[i].ID
			m.Guards = slices.Delete(m.Guards, i, i+1)
		case 2: // remove wake_up
			removeState(&m, StateWakeUp)
			want = "wake_up"
		case 3: // add an unguarded transition between two non-exit states
			var froms []StateID
			for _, s := range m.States {
				if s.Kind != KindExit {
					froms = append(froms, s.ID)
				}
			}
			from := rapid.SampledFrom(froms).Draw(t, "from")
			to := rapid.SampledFrom(m.States).Draw(t, "to").ID
			m.Transitions = append(m.Transitions, Transition{From: from, To: to, On: "mutant",
				Failure: to == StateFailure || to == StateExitFailed})
			want = "has no guard_ref"
		case 4: // make an exit non-terminal
			var exits []StateID
			for _, s := range m.States {
				if s.Kind == KindExit {
					exits = append(exits, s.ID)
				}
			}
			id := rapid.SampledFrom(exits).Draw(t, "exit")
			setState(&m, id, func(s *State) { s.Terminal = false })
			want = string(id)
		case 5: // drop an operational state's failure edge
			var ops []StateID
			for _, s := range m.States {
				if s.Kind == KindOperational {
					ops = append(ops, s.ID)
				}
			}
			id := rapid.SampledFrom(ops).Draw(t, "operational")
			m.Transitions = slices.DeleteFunc(m.Transitions, func(tr Transition) bool { return tr.From == id && tr.Failure })
			want = `state "` + string(id) + `": operational state has no failure transition`
		}
		err := m.Validate()
		if kind == 0 {
			require.NoError(t, err)
			return
		}
		require.Error(t, err)
		require.Contains(t, err.Error(), want)
	})
}

// TestStateMachineRevisionEdges: a revision leaves from wake_up and ends
// the step where the item stood, a committed cycle only within the cap,
// and a stopped pipeline is never revised.
func TestStateMachineRevisionEdges(t *testing.T) {
	m := StateMachine()
	s, ok := m.State(StateRevision)
	require.True(t, ok)
	assert.Equal(t, KindSide, s.Kind)
	tests := []struct {
		name    string
		from    StateID
		on      Event
		in      GuardInput
		want    StateID
		refused bool
	}{
		{"a review awaits an answer", StateWakeUp, EventRevise, GuardInput{Snapshot: Snapshot{Stage: StageIntegration}}, StateRevision, false},
		{"a stopped pipeline is not revised", StateWakeUp, EventRevise, GuardInput{Snapshot: Snapshot{Stage: StageIntegration, Stopped: &StopRecord{By: "a"}}}, "", true},
		{"no state, no revision", StateWakeUp, EventRevise, GuardInput{}, "", true},
		{"a committed cycle within the cap", StateRevision, EventRevised, GuardInput{MaxRevisionCycles: 3,
			Snapshot: Snapshot{Revisions: []RevisionRecord{{PR: 5, Cycle: 3, Action: RevisionRevised}}}}, StateExitWaiting, false},
		{"a committed cycle past the cap", StateRevision, EventRevised, GuardInput{MaxRevisionCycles: 3,
			Snapshot: Snapshot{Revisions: []RevisionRecord{{PR: 5, Cycle: 4, Action: RevisionRevised}}}}, "", true},
		{"a stopped cycle", StateRevision, EventRevisionStopped, GuardInput{}, StateExitWaiting, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := m.Fire(tt.from, tt.on, tt.in)
			if tt.refused {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, tr.To)
		})
	}
}
