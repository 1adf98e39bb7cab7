package stagekit

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

func swiSnap(recs ...pipeline.SWI) *pipeline.Snapshot {
	s := pipeline.NewSnapshot(testenv.Repo.String(), 7)
	s.SubWorkItems = recs
	return &s
}

func TestSWIBranchAndBase(t *testing.T) {
	t.Parallel()
	snap := swiSnap(
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1},
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "b"}, Order: 2, Branch: "cogworks/7/swi-2"},
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "c", DependsOn: []string{"b", "a"}}, Order: 3},
		pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "d", DependsOn: []string{"a"}}, Order: 4},
	)
	rec := func(id string) pipeline.SWI {
		r := snap.SubWorkItem(id)
		require.NotNil(t, r)
		return *r
	}
	assert.Equal(t, "cogworks/7/swi-3", SWIBranch(7, rec("c")))
	assert.Equal(t, "cogworks/7/interfaces", SWIBase(snap, rec("a")), "no dependency: the interface branch")
	snap.Artifacts.InterfaceBranch = "cogworks/7/iface"
	assert.Equal(t, "cogworks/7/iface", SWIBase(snap, rec("a")), "the recorded interface branch wins")
	assert.Equal(t, "cogworks/7/swi-2", SWIBase(snap, rec("c")), "the last dependency in topological order")
	assert.Equal(t, "cogworks/7/swi-1", SWIBase(snap, rec("d")))

	closure, err := dependencyClosure(snap, rec("c"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, []string{closure[0].ID, closure[1].ID})

	cyclic := swiSnap(pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "x", DependsOn: []string{"y"}}}, pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "y", DependsOn: []string{"x"}}})
	_, err = dependencyClosure(cyclic, cyclic.SubWorkItems[0])
	assert.ErrorContains(t, err, "x → y → x")
}

func TestSetSWIStatusIsIdempotent(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	repo := testenv.Repo.String()
	n := env.Sim.SeedIssue(repo, testenv.Bot, "swi", "body", pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending))
	snap := swiSnap(pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "a"}, Issue: n, Order: 1, Status: pipeline.SWIPending})
	gh := env.Client

	change, err := SetSWIStatus(ctx, gh, testenv.Repo, snap, "a", pipeline.SWIInProgress)
	require.NoError(t, err)
	assert.Equal(t, pipeline.SWIPending, snap.SubWorkItems[0].Status, "the label moved; the snapshot is the engine's to change")
	assert.Equal(t, pipeline.SetSWIStatus{ID: "a", Status: pipeline.SWIInProgress}, change)
	require.NoError(t, snap.Apply(change))
	assert.Equal(t, pipeline.SWIInProgress, snap.SubWorkItems[0].Status)
	assert.ElementsMatch(t, []string{pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIInProgress)}, env.Sim.Labels(repo, n))

	env.Sim.ResetRequests()
	_, err = SetSWIStatus(ctx, gh, testenv.Repo, snap, "a", pipeline.SWIInProgress)
	require.NoError(t, err)
	for _, r := range env.Sim.Requests() {
		assert.Equal(t, "GET", r.Method, "nothing written the second time: %s %s", r.Method, r.Path)
	}

	_, err = SetSWIStatus(ctx, gh, testenv.Repo, snap, "ghost", pipeline.SWICompleted)
	assert.ErrorContains(t, err, `"ghost"`)
	_, err = SetSWIStatus(ctx, gh, testenv.Repo, snap, "a", "done")
	assert.ErrorContains(t, err, `invalid status "done"`)
}

func TestListAfterHeading(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		want       []string
	}{
		{"bullets", "Intro\n\n**Interfaces:**\n- `IF-A`\n- IF-B — the second\n\nTests: x", []string{"IF-A", "IF-B"}},
		{"inline", "## Interfaces: IF-A, `IF-B`\n", []string{"IF-A", "IF-B"}},
		{"heading without colon", "### Interfaces\n\n* IF-C\n", []string{"IF-C"}},
		{"none", "Interfaces: (none)\n", nil},
		{"absent", "Files:\n- a.go\n", nil},
		{"not a heading", "Interfaces are great\n- IF-X\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, listAfterHeading(tt.body, "interfaces"))
		})
	}
}

func TestPlanItemFallsBackToTheSubIssueBody(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	it := planner.SubWorkItem{ID: "a", Title: "Counter", Description: "Count things.",
		Files: []string{"widgets/c.go"}, Symbols: []string{"Counter.Inc", "newCounter"}, Interfaces: []string{"IF-A", "IF-B"}}
	n := env.Sim.SeedIssue(repo, testenv.Bot, it.Title, SubIssueBody(7, "<!-- cogworks:swi=7/a -->", it, nil))
	snap := swiSnap(pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: "a"}, Issue: n, Order: 1})

	got, err := PlanItem(context.Background(), env.Client, testenv.Repo, snap.SubWorkItems[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"IF-A", "IF-B"}, got.Interfaces)
	assert.Equal(t, []string{"widgets/c.go"}, got.Files)
	assert.Equal(t, []string{"Counter.Inc", "newCounter"}, got.Symbols, "the symbols survive the round trip")
	assert.Equal(t, "Counter", got.Title)

	snap.SubWorkItems[0].SubWorkItem = planner.SubWorkItem{ID: "a", Interfaces: []string{"IF-Z"}}
	got, err = PlanItem(context.Background(), env.Client, testenv.Repo, snap.SubWorkItems[0])
	require.NoError(t, err)
	assert.Equal(t, []string{"IF-Z"}, got.Interfaces, "the stored plan wins")
}
