package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/planner"
)

func TestNextSWI(t *testing.T) {
	t.Parallel()
	const (
		pending    = SWIPending
		inProgress = SWIInProgress
		completed  = SWICompleted
		failed     = SWIFailed
	)
	tests := []struct {
		name   string
		recs   []SWI
		want   string
		wantOK bool
	}{
		{name: "none", recs: nil},
		{
			name: "first by order, not by slice position",
			recs: []SWI{{SubWorkItem: planner.SubWorkItem{ID: "b"}, Order: 2, Status: pending}, {SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: pending}},
			want: "a", wantOK: true,
		},
		{
			name: "waits for dependencies to complete",
			recs: []SWI{
				{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: inProgress},
				{SubWorkItem: planner.SubWorkItem{ID: "b", DependsOn: []string{"a"}}, Order: 2, Status: pending},
			},
			want: "a", wantOK: true,
		},
		{
			name: "dependency in progress blocks",
			recs: []SWI{
				{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: failed},
				{SubWorkItem: planner.SubWorkItem{ID: "b", DependsOn: []string{"a"}}, Order: 2, Status: pending},
			},
		},
		{
			name: "skips completed and starts the ready one",
			recs: []SWI{
				{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: completed},
				{SubWorkItem: planner.SubWorkItem{ID: "b"}, Order: 2, Status: completed},
				{SubWorkItem: planner.SubWorkItem{ID: "c", DependsOn: []string{"a", "b"}}, Order: 3, Status: pending},
			},
			want: "c", wantOK: true,
		},
		{
			name: "unknown dependency never completes",
			recs: []SWI{{SubWorkItem: planner.SubWorkItem{ID: "a", DependsOn: []string{"ghost"}}, Order: 1, Status: pending}},
		},
		{
			name: "all completed",
			recs: []SWI{{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: completed}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Snapshot{SubWorkItems: tt.recs}.NextSWI()
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got.ID)
		})
	}
}

// TestMachineOwnsCurrentSWI: CurrentSWI moves only with the machine —
// entering code generation takes the next ready sub-work-item, the
// next_swi and all_done events leave it — and no executor change can
// name it (Change has no CurrentSWI field; the stages' guard test
// forbids assigning it).
func TestMachineOwnsCurrentSWI(t *testing.T) {
	t.Parallel()
	s := NewSnapshot("o/r", 7)
	s.SubWorkItems = []SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: SWIPending},
		{SubWorkItem: planner.SubWorkItem{ID: "b", DependsOn: []string{"a"}}, Order: 2, Status: SWIPending},
	}
	s.EnterSWI(StageIntegration)
	assert.Empty(t, s.CurrentSWI, "only the per-SWI loop's entry (code generation) takes a SWI")
	s.EnterSWI(StageCodeGeneration)
	require.Equal(t, "a", s.CurrentSWI)
	s.EnterSWI(StageCodeGeneration)
	assert.Equal(t, "a", s.CurrentSWI, "a current SWI stays current")
	s.LeaveSWI(EventDone)
	assert.Equal(t, "a", s.CurrentSWI, "done moves on within the SWI")
	require.NoError(t, s.Apply(SetSWIStatus{ID: "a", Status: SWICompleted}, SetSWIPull{ID: "a", Branch: "cogworks/7/swi-1", PR: 9}))
	s.LeaveSWI(EventNextSWI)
	assert.Empty(t, s.CurrentSWI)
	s.EnterSWI(StageCodeGeneration)
	assert.Equal(t, "b", s.CurrentSWI, "the next_swi edge leads to the SWI whose dependencies are done")
	require.NoError(t, s.Apply(SetSWIStatus{ID: "b", Status: SWICompleted}))
	s.LeaveSWI(EventAllDone)
	assert.Empty(t, s.CurrentSWI)
	s.EnterSWI(StageCodeGeneration)
	assert.Empty(t, s.CurrentSWI, "none ready: none current")
}

func TestApply(t *testing.T) {
	t.Parallel()
	s := NewSnapshot("o/r", 7)
	require.NoError(t, s.Apply(
		SetClassification{Classification: classify.Classification{Type: classify.TypeFeature}},
		SetSpec{Branch: "cogworks/7/spec", PR: 3},
		SetInterfaces{Branch: "cogworks/7/interfaces", PR: 4},
		SetPlan{SubWorkItems: []SWI{{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: SWIPending, Feedback: "old"}}},
		SetSWICommit{ID: "a", Branch: "cogworks/7/swi-1", Committed: []string{"b.go", "a.go", "b.go"}},
		SetSWIRemediation{ID: "a", Cycles: 2, Feedback: "fix"},
		SetScenarioHistory{History: map[string][]bool{}},
	))
	require.NotNil(t, s.Classification)
	assert.Equal(t, classify.TypeFeature, s.Classification.Type)
	assert.Equal(t, Artifacts{SpecBranch: "cogworks/7/spec", SpecPR: 3, InterfaceBranch: "cogworks/7/interfaces", InterfacePR: 4}, s.Artifacts)
	assert.Nil(t, s.Interfaces, "an empty list is nil, so the block round-trips")
	assert.Nil(t, s.ScenarioHistory)
	w := s.SubWorkItem("a")
	assert.Equal(t, []string{"a.go", "b.go"}, w.Committed)
	assert.Equal(t, 2, w.RemediationCycles)
	assert.Equal(t, "fix", w.Feedback)

	err := s.Apply(SetSWIStatus{ID: "ghost", Status: SWICompleted}, SetSpec{Branch: "x"})
	require.Error(t, err, "a change naming a SWI the plan lacks")
	assert.Equal(t, "cogworks/7/spec", s.Artifacts.SpecBranch, "changes after a failed one are not applied")
	require.Error(t, s.Apply(SetSWIStatus{ID: "a", Status: "bogus"}))
}

func TestCommittedPaths(t *testing.T) {
	t.Parallel()
	assert.Nil(t, CommittedPaths(nil, nil), "nothing committed leaves no empty list")
	got := CommittedPaths(nil, []string{"b.go", "a.go", "b.go"})
	assert.Equal(t, []string{"a.go", "b.go"}, got)
	assert.Equal(t, []string{"a.go", "b.go", "c.go"}, CommittedPaths(got, []string{"c.go", "a.go"}), "earlier commits are kept")
	assert.Equal(t, []string{"a.go", "b.go"}, got, "the recorded list is not modified")
}

// TestViewIsACopy: what an executor does to its view never reaches the
// engine's snapshot.
func TestViewIsACopy(t *testing.T) {
	t.Parallel()
	s := NewSnapshot("o/r", 7)
	s.SubWorkItems = []SWI{{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: SWIPending, Attempts: map[Stage]int{StageCodeGeneration: 1}}}
	s.Ledger.PerStage = map[string]Usage{"intake": {Calls: 1}}
	v, err := s.View()
	require.NoError(t, err)
	assert.Equal(t, s, *v)
	v.SubWorkItem("a").Status = SWICompleted
	v.SubWorkItems[0].Attempts[StageCodeGeneration] = 9
	v.Ledger.PerStage["intake"] = Usage{Calls: 5}
	v.CurrentSWI = "a"
	assert.Equal(t, SWIPending, s.SubWorkItems[0].Status)
	assert.Equal(t, 1, s.SubWorkItems[0].Attempts[StageCodeGeneration])
	assert.Equal(t, 1, s.Ledger.PerStage["intake"].Calls)
	assert.Empty(t, s.CurrentSWI)
}
