package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/planner"
)

func TestFireRemediationLimit(t *testing.T) {
	tests := []struct {
		name       string
		cycles     int
		configured int
		wantOK     bool
	}{
		{"first loop", 1, 3, true},
		{"last allowed loop", 3, 3, true},
		{"one loop too many", 4, 3, false},
		{"no loop counted", 0, 3, false},
		{"unset limit uses the default", DefaultRemediationCycles, 0, true},
		{"unset limit refuses beyond the default", DefaultRemediationCycles + 1, 0, false},
	}
	for _, from := range []StateID{StateForStage(StageReview), StateForStage(StageScenarioValidation)} {
		for _, tt := range tests {
			t.Run(string(from)+"/"+tt.name, func(t *testing.T) {
				snap := NewSnapshot("a/b", 1)
				snap.CurrentSWI = "swi-1"
				snap.SubWorkItems = []SWI{{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}, RemediationCycles: tt.cycles}}
				tr, err := StateMachine().Fire(from, EventRemediate, GuardInput{Snapshot: snap, MaxRemediationCycles: tt.configured})
				if tt.wantOK {
					require.NoError(t, err)
					assert.Equal(t, StateForStage(StageCodeGeneration), tr.To)
					return
				}
				var te *TransitionError
				require.ErrorAs(t, err, &te)
				assert.Len(t, te.Refused, 1)
				assert.Contains(t, te.Refused[0], "remediate")
			})
		}
	}
}

func TestFireSubWorkItemGuards(t *testing.T) {
	m := StateMachine()
	snap := NewSnapshot("a/b", 1)
	snap.SubWorkItems = []SWI{{SubWorkItem: planner.SubWorkItem{ID: "a"}, Status: SWICompleted}, {SubWorkItem: planner.SubWorkItem{ID: "b"}, Status: "in-progress"}}
	in := GuardInput{Snapshot: snap}

	tr, err := m.Fire(StateForStage(StageIntegration), EventNextSWI, in)
	require.NoError(t, err)
	assert.Equal(t, StateForStage(StageCodeGeneration), tr.To)
	_, err = m.Fire(StateForStage(StageIntegration), EventAllDone, in)
	require.Error(t, err, "all_done while a sub-work-item remains")
	assert.Contains(t, err.Error(), "guard_all_swis_done")

	in.Snapshot.SubWorkItems[1].Status = SWICompleted
	for _, from := range []Stage{StageIntegration, StageCodeGeneration} {
		tr, err = m.Fire(StateForStage(from), EventAllDone, in)
		require.NoError(t, err)
		assert.Equal(t, StateExitComplete, tr.To)
	}
	_, err = m.Fire(StateForStage(StageIntegration), EventNextSWI, in)
	require.Error(t, err, "next_swi with nothing left")
}

func TestFireUnknownEvent(t *testing.T) {
	_, err := StateMachine().Fire(StateForStage(StageIntake), EventNextSWI, GuardInput{})
	var te *TransitionError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, StateID("intake"), te.From)
	assert.Empty(t, te.Refused)
	assert.Contains(t, err.Error(), `intake has no transition on "next_swi"`)
}

func TestFireAmbiguousGuards(t *testing.T) {
	m := mutate(func(m *Machine) {
		m.Transitions = append(m.Transitions, Transition{From: "intake", To: "planning", On: EventDone, GuardRef: "guard_intake_done"})
	})
	_, err := m.Fire("intake", EventDone, GuardInput{})
	var te *TransitionError
	require.ErrorAs(t, err, &te)
	assert.ElementsMatch(t, []StateID{"gate_intake", "planning"}, te.Ambiguous)
}

// TestSkipStages builds the bug-fix variant: no specification, no
// interfaces. Only the table changes; it stays a valid SASS machine.
func TestSkipStages(t *testing.T) {
	m, err := StateMachine().Skip(StageArchitecture)
	require.NoError(t, err)
	m, err = m.Skip(StageInterfaceDesign)
	require.NoError(t, err)
	require.NoError(t, m.Validate())

	for _, id := range []StateID{"architecture", "gate_architecture", "interface-design", "gate_interface-design"} {
		_, ok := m.State(id)
		assert.False(t, ok, "%s is gone", id)
		assert.NotContains(t, m.Mermaid(""), MermaidID(id)+" ")
	}
	for _, g := range m.Guards {
		assert.NotContains(t, g.ID, "architecture", "guards only the skipped states used are gone")
	}
	tr, err := m.Settle(GateState(StageIntake), GuardInput{GateMode: AutoProceed})
	require.NoError(t, err)
	assert.Equal(t, StateForStage(StagePlanning), tr.To, "intake's gate leads straight to planning")
	tr, err = m.Settle(GateState(StageIntake), GuardInput{GateMode: HumanGated})
	require.NoError(t, err)
	assert.Equal(t, StateExitWaiting, tr.To, "the gate still waits for a human")

	// The original table is untouched.
	_, ok := StateMachine().State("architecture")
	assert.True(t, ok)
}

func TestSkipRejects(t *testing.T) {
	tests := []struct {
		name  string
		stage Stage
		want  string
	}{
		{"unknown stage", "bogus", `no operational state ""`},
		{"terminal stage", StageComplete, `no operational state "exit_complete"`},
		{"no single way on", StageIntegration, "has no transition on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := StateMachine().Skip(tt.stage)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// BenchmarkStateMachineFire is what the engine pays per transition: the
// table is built afresh and one event fired through it.
func BenchmarkStateMachineFire(b *testing.B) {
	snap := NewSnapshot("a/b", 1)
	for b.Loop() {
		if _, err := StateMachine().Fire(StateForStage(StageIntake), EventDone, GuardInput{Snapshot: snap}); err != nil {
			b.Fatal(err)
		}
	}
}
