package intake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestAssertCLASS001_ClassificationValidatedThroughExecutor(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	// A schema-violating answer is sent back by the gateway; the valid one
	// is used.
	f.Script.Add(prompts.Classify, `{"type":"banana","affected_modules":["counter"],"estimated_scope":{"files":2,"interfaces":1,"complexity":"low"},"safety_affecting":false,"rationale":"x"}`)
	f.AddJSON(t, prompts.Classify, stagetest.SampleClassification)
	snap := f.Snapshot()
	res, err := f.Run(t, pipeline.StageIntake, snap)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	require.NotNil(t, snap.Classification)
	assert.Equal(t, stagetest.SampleClassification, *snap.Classification)
	assert.Equal(t, 2, f.Requests(prompts.Classify), "the invalid answer was sent back once")
	user := f.UserPrompt(t, prompts.Classify, 0)
	assert.Contains(t, user, "Count widgets per hour")
	assert.Contains(t, user, "firmware/motor", "the modules are listed")
	body := f.ClassificationComment(t)
	for _, want := range []string{"**Type:** `feature`", "`counter`", "3 files, 1 interfaces, low complexity", "**Safety-affecting:** no", "> Small feature."} {
		assert.Contains(t, body, want)
	}
	assert.Equal(t, 2, snap.Ledger.PerStage["intake"].Calls, "both answered provider requests are booked")
}

func TestAssertCLASS002_SafetyOverrideThroughExecutor(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Cfg.Classification.SafetyCriticalModules = []string{"brake"}
	c := stagetest.SampleClassification
	c.AffectedModules = []string{"counter", "brake/abs"}
	f.AddJSON(t, prompts.Classify, c)
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageIntake, snap)
	require.NoError(t, err)
	assert.True(t, snap.Classification.SafetyAffecting)
	assert.Contains(t, f.ClassificationComment(t), "listed in `safety_critical_modules`")
}

func TestAssertCLASS003_NoSafetyOverrideWithoutMatch(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Cfg.Classification.SafetyCriticalModules = []string{"brake"}
	f.AddJSON(t, prompts.Classify, stagetest.SampleClassification)
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageIntake, snap)
	require.NoError(t, err)
	assert.False(t, snap.Classification.SafetyAffecting)
}

func TestAssertCLASS004_ScopeOverThresholdEscalates(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	c := stagetest.SampleClassification
	c.EstimatedScope.Files = 41
	f.AddJSON(t, prompts.Classify, c)
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageIntake, snap)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "%v", err)
	assert.Contains(t, esc.Reason, "estimated_scope.files 41 exceeds max_scope_files 40")
	require.NotNil(t, snap.Classification, "the classification is kept so humans see why")
	assert.Contains(t, f.ClassificationComment(t), "**Escalated to humans:**")
}

func TestIntakeInvalidClassificationFedBack(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	bad := stagetest.SampleClassification
	bad.Rationale = " "
	f.AddJSON(t, prompts.Classify, bad)
	f.AddJSON(t, prompts.Classify, stagetest.SampleClassification)
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageIntake, snap)
	require.NoError(t, err)
	assert.Contains(t, f.UserPrompt(t, prompts.Classify, 1), "rationale: must not be empty")
}

func TestAssertPSM001_FreshWorkItemEntersIntake(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	require.True(t, f.Env.Sim.LabelIssue(testenv.Repo.String(), f.Issue, "alice", pipeline.LabelRun))
	f.AddJSON(t, prompts.Classify, stagetest.SampleClassification)
	ed := engine.Deps{GitHub: f.Env.Client, Executors: stagetest.IssueToPlanExecutors(f.Deps), Config: f.Cfg, RunID: "run-1",
		BotLogin: testenv.Bot, Clock: f.Env.Clock.Now}
	res, err := engine.Step(context.Background(), ed, engine.Ref{Repo: testenv.Repo, Issue: f.Issue})
	require.NoError(t, err)
	assert.Equal(t, string(pipeline.StageIntake), res.Stage)
	assert.Equal(t, 1, f.Requests(prompts.Classify), "the classifier was invoked")
	var labeled []string
	for _, e := range f.Env.Sim.Events(testenv.Repo.String(), f.Issue) {
		if e.Event == "labeled" {
			labeled = append(labeled, e.Label)
		}
	}
	assert.Contains(t, labeled, pipeline.StageLabel(pipeline.StageIntake))
	f.ClassificationComment(t)
}
