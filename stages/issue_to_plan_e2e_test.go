package stages_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestIssueToPlanEndToEnd drives the engine with the issue-to-plan executors
// over the simulator, a scripted LLM and the real Go domain service: from
// cogworks:run to sub-issues, through the human spec gate (a read-only
// user's approval does not count) and the interface gate that the
// safety-critical classification forces to human.
func TestIssueToPlanEndToEnd(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Deps.Domain = stagetest.StartGoService(t)
	f.Cfg.Classification.SafetyCriticalModules = []string{"brake"}
	repo := testenv.Repo.String()
	ctx := context.Background()

	c := stagetest.SampleClassification
	c.AffectedModules = []string{"counter", "brake"}
	f.AddJSON(t, prompts.Classify, c)
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	f.AddJSON(t, prompts.InterfaceDesign, stagetest.Design("counter/hourly.go", stagetest.GoodInterface))
	f.AddJSON(t, prompts.Planning, planner.Plan{SubWorkItems: []planner.SubWorkItem{
		stagetest.Item("report", []string{}, "hourly"), stagetest.Item("hourly", []string{"IF-1"}),
	}})

	ed := engine.Deps{GitHub: f.Env.Client, Executors: stagetest.IssueToPlanExecutors(f.Deps), Config: f.Cfg, RunID: "run-1",
		BotLogin: testenv.Bot, Clock: f.Env.Clock.Now}
	ref := engine.Ref{Repo: testenv.Repo, Issue: f.Issue}
	run := func(max int) []engine.Result {
		t.Helper()
		res, err := engine.Run(ctx, ed, ref, max)
		require.NoError(t, err)
		return res
	}
	labels := func() []string { return f.Env.Sim.Labels(repo, f.Issue) }

	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelRun))
	res := run(10)
	assert.Equal(t, engine.OutcomeWaiting, res[len(res)-1].Outcome)
	f.ClassificationComment(t)
	pulls := f.Env.Sim.Pulls(repo)
	require.Len(t, pulls, 1)
	assert.Equal(t, "cogworks/1/spec", pulls[0].Head)
	assert.Contains(t, labels(), pipeline.StageLabel(pipeline.StageArchitecture))
	assert.Contains(t, labels(), pipeline.LabelAwaitingReview)
	assert.Contains(t, labels(), pipeline.LabelSafetyCritical)

	// mallory (read access) cannot approve.
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "mallory", pipeline.LabelApprove))
	run(10)
	assert.Len(t, f.Env.Sim.Pulls(repo), 1, "no interface PR")
	assert.Contains(t, labels(), pipeline.StageLabel(pipeline.StageArchitecture))
	assert.NotContains(t, labels(), pipeline.LabelApprove, "the refused approval label is removed")

	// alice (maintain) can; interface design then waits for a human because
	// the work item is safety-critical (auto-proceed in config).
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	res = run(10)
	assert.Equal(t, engine.OutcomeWaiting, res[len(res)-1].Outcome)
	pulls = f.Env.Sim.Pulls(repo)
	require.Len(t, pulls, 2)
	assert.Equal(t, "cogworks/1/interfaces", pulls[1].Head)
	assert.Contains(t, pulls[1].Body, "builds on #"+stagetest.Itoa(pulls[0].Number))
	assert.Contains(t, labels(), pipeline.StageLabel(pipeline.StageInterfaceDesign))
	assert.Contains(t, labels(), pipeline.LabelAwaitingReview)

	// Approve again: planning writes the sub-issues and hands over to code
	// generation (whose executor is not part of this test, hence one step).
	require.True(t, f.Env.Sim.LabelIssue(repo, f.Issue, "alice", pipeline.LabelApprove))
	run(1)
	assert.Contains(t, labels(), pipeline.StageLabel(pipeline.StageCodeGeneration))
	snap := f.StatusSnapshot(t)
	recs := snap.SubWorkItems
	require.Len(t, recs, 2)
	assert.Equal(t, "hourly", recs[0].ID, "topological order")
	assert.Equal(t, "report", recs[1].ID)
	report, ok := f.Env.Sim.Issue(repo, recs[1].Issue)
	require.True(t, ok)
	assert.Contains(t, report.Labels, pipeline.DependsOnLabel(recs[0].Issue))
	assert.Contains(t, report.Labels, pipeline.OrderLabel(2))
	assert.Equal(t, f.Issue, report.Parent)
	assert.Equal(t, pulls[0].Number, snap.Artifacts.SpecPR)
	assert.Equal(t, pulls[1].Number, snap.Artifacts.InterfacePR)

	// Re-running every issue-to-plan step on the final state writes nothing.
	f.AddJSON(t, prompts.Classify, c)
	f.Env.Sim.ResetRequests()
	for _, stage := range []pipeline.Stage{pipeline.StageIntake, pipeline.StageArchitecture, pipeline.StageInterfaceDesign, pipeline.StagePlanning} {
		again := snap
		again.Stage = stage
		out, err := f.Run(t, stage, &again)
		require.NoError(t, err, "%s", stage)
		assert.Equal(t, pipeline.EventDone, out.Event)
		assert.Equal(t, snap.Artifacts, again.Artifacts, "%s", stage)
	}
	assert.Zero(t, stagetest.FHWrites(f.Env.Sim), "re-running changes nothing")
	assert.Len(t, f.Env.Sim.Pulls(repo), 2)
}
