package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// TestMachineVariantSkipsStages runs the engine, unchanged, through a
// table without architecture and interface-design (the bug-fix path):
// intake's gate leads to planning, the skipped executors never run, an
// approval passes the gate by the variant's table and the status diagram
// is drawn from it.
func TestMachineVariantSkipsStages(t *testing.T) {
	m, err := pipeline.StateMachine().Skip(pipeline.StageArchitecture)
	require.NoError(t, err)
	m, err = m.Skip(pipeline.StageInterfaceDesign)
	require.NoError(t, err)

	f := newFixture(t, pipeline.LabelRun)
	f.deps.Machine = &m
	for k := range f.deps.Config.Gates {
		f.deps.Config.Gates[k] = config.AutoProceed
	}
	f.deps.Config.Gates["intake"] = config.HumanGated
	f.deps.Executors[pipeline.StageIntegration] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventAllDone}, nil
	})

	res := f.step(t)
	require.Equal(t, OutcomeWaiting, res.Outcome, "intake's gate waits")
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelApprove))
	res = f.step(t)
	assert.Equal(t, string(pipeline.StagePlanning), res.Stage, "the approval leads past the skipped stages")

	results, err := Run(context.Background(), f.deps, f.ref(), 20)
	require.NoError(t, err)
	assert.Equal(t, OutcomeComplete, results[len(results)-1].Outcome)
	assert.Contains(t, f.labels(), "cogworks:stage:complete")
	assert.Zero(t, f.rec.count(pipeline.StageArchitecture))
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))
	for _, st := range []pipeline.Stage{pipeline.StageIntake, pipeline.StagePlanning, pipeline.StageCodeGeneration, pipeline.StageScenarioValidation, pipeline.StageReview} {
		assert.Equal(t, 1, f.rec.count(st), st)
	}
	diagrams := 0
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if strings.Contains(c.Body, "stateDiagram-v2") {
			diagrams++
			assert.NotContains(t, c.Body, "gate_architecture", "the diagram is the variant's")
			assert.Contains(t, c.Body, "gate_intake --> planning")
		}
	}
	assert.Equal(t, 1, diagrams, "the status comment shows the diagram")
}

// TestMachineRemediationGuardFailsTheStage: the table's remediation limit
// holds even when an executor keeps reporting remediate.
func TestMachineRemediationGuardFailsTheStage(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	for k := range f.deps.Config.Gates {
		f.deps.Config.Gates[k] = config.AutoProceed
	}
	f.deps.Config.Budgets.ReviewMaxRemediationCycles = 2
	f.deps.Executors[pipeline.StagePlanning] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetPlan{
			SubWorkItems: []pipeline.SWI{{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}, Status: pipeline.SWIInProgress}}}}}, nil
	})
	reviews := 0
	f.deps.Executors[pipeline.StageReview] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		reviews++
		rec := in.Snapshot.SubWorkItem(in.Snapshot.CurrentSWI)
		require.NotNil(t, rec, "the machine made swi-1 current on entering code generation")
		return StageResult{Event: pipeline.EventRemediate, Changes: []pipeline.Change{
			pipeline.SetSWIRemediation{ID: rec.ID, Cycles: rec.RemediationCycles + 1}}}, nil
	})

	_, err := Run(context.Background(), f.deps, f.ref(), 40)
	require.Error(t, err)
	require.True(t, isFailed(err))
	assert.Contains(t, err.Error(), "guard_review_remediate")
	assert.Equal(t, 3, reviews, "two loops back to code generation, the third is refused")
	assert.Equal(t, 3, f.rec.count(pipeline.StageCodeGeneration))
	assert.Contains(t, f.labels(), "cogworks:stage:failed")
	snap := f.snapshot(t)
	require.NotNil(t, snap.Failure)
	assert.Equal(t, pipeline.StageReview, snap.Failure.Stage)
}

// TestMachineUnknownEventFailsTheStage: an executor cannot name a way on
// the table does not have.
func TestMachineUnknownEventFailsTheStage(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventNextSWI}, nil
	})
	_, err := Step(context.Background(), f.deps, f.ref())
	require.True(t, isFailed(err), "%v", err)
	assert.Contains(t, err.Error(), `intake has no transition on "next_swi"`)
	assert.Contains(t, f.labels(), "cogworks:stage:failed")
}

// TestMachineApprovalIntoMissingGateFails: an item waits at a gate the
// table in use no longer has (switched to the bug-fix variant meanwhile);
// the approval fails the stage with a report instead of guessing a way on.
func TestMachineApprovalIntoMissingGateFails(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	f.step(t) // intake → architecture
	res := f.step(t)
	require.Equal(t, OutcomeWaiting, res.Outcome)

	m, err := pipeline.StateMachine().Skip(pipeline.StageArchitecture)
	require.NoError(t, err)
	f.deps.Machine = &m
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelApprove))
	_, err = Step(context.Background(), f.deps, f.ref())
	require.True(t, isFailed(err), "%v", err)
	assert.Contains(t, err.Error(), "gate_architecture")
	assert.Contains(t, f.labels(), "cogworks:stage:failed")
	assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign))
}

func TestMachineInvalidTableIsRefused(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	m := pipeline.StateMachine()
	m.Start = "intake"
	f.deps.Machine = &m
	_, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Deps.Machine cogworks.pipeline")
	assert.Zero(t, writes(f.env.Sim), "nothing runs on a broken table")
}

// TestEngineMachineOwnsCurrentSWI: executors that never name the current
// sub-work-item are led through the plan by the machine — entering code
// generation takes the next ready SWI (b only once a, its dependency, is
// completed), the next_swi edge leaves it — and a write an executor makes
// to its snapshot is lost: only returned changes count.
func TestEngineMachineOwnsCurrentSWI(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	for k := range f.deps.Config.Gates {
		f.deps.Config.Gates[k] = config.AutoProceed
	}
	f.deps.Executors[pipeline.StagePlanning] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetPlan{SubWorkItems: []pipeline.SWI{
			{SubWorkItem: planner.SubWorkItem{ID: "b", DependsOn: []string{"a"}}, Order: 2, Status: pipeline.SWIPending},
			{SubWorkItem: planner.SubWorkItem{ID: "a"}, Order: 1, Status: pipeline.SWIPending},
		}}}}, nil
	})
	var generated []string
	f.deps.Executors[pipeline.StageCodeGeneration] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		generated = append(generated, in.Snapshot.CurrentSWI)
		in.Snapshot.CurrentSWI = "b" // a write to the copy: ignored
		return StageResult{Event: pipeline.EventDone}, nil
	})
	f.deps.Executors[pipeline.StageIntegration] = StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		id := in.Snapshot.CurrentSWI
		require.NotEmpty(t, id, "integration runs on the SWI the machine made current")
		ev := pipeline.EventNextSWI
		if id == "b" {
			ev = pipeline.EventAllDone
		}
		return StageResult{Event: ev, Changes: []pipeline.Change{pipeline.SetSWIStatus{ID: id, Status: pipeline.SWICompleted}}}, nil
	})

	results, err := Run(context.Background(), f.deps, f.ref(), 20)
	require.NoError(t, err)
	assert.Equal(t, OutcomeComplete, results[len(results)-1].Outcome)
	assert.Equal(t, []string{"a", "b"}, generated, "a first (b depends on it), then b by the next_swi edge")
	snap := f.snapshot(t)
	assert.Empty(t, snap.CurrentSWI, "all_done left the last SWI")
	for _, w := range snap.SubWorkItems {
		assert.Equal(t, pipeline.SWICompleted, w.Status, w.ID)
	}
}
