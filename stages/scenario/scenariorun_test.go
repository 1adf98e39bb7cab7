package scenario_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	scenariostage "github.com/cogworks/cogworks/stages/scenario"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// countScenario renders a scenario of the given trajectories whose
// overlay test expects want after two increments. HOLDOUT-* markers must
// never reach code generation.
func countScenario(id string, covers string, trajectories, want int, judge bool) (toml, test string) {
	toml = fmt.Sprintf(`id = %q
description = "HOLDOUT-DESC counting twice"
covers = [%q]
trajectories = %d

[run]
overlay = [{ from = ".cogworks/scenarios/%s_test.go", to = "widgets/zz_scenario_test.go" }]
packages = ["./widgets"]
filter = "TestScenarioCount"

[[acceptance]]
check = "exit_code"
equals = 0

[[failure]]
check = "content_matches"
pattern = "(?i)panic:"
`, id, covers, trajectories, id)
	if judge {
		toml += `
[[acceptance]]
check = "llm_judge"
criteria = "The counter reports two after two increments."
min_score = 0.8
`
	}
	test = fmt.Sprintf(`package widgets

import "testing"

// HOLDOUT-SOURCE of the scenario test.
func TestScenarioCount(t *testing.T) {
	t.Parallel()
	c := NewSimple()
	c.Inc()
	c.Inc()
	if c.Value() != %d {
		t.Fatalf("count is %%d", c.Value())
	}
}
`, want)
	return toml, test
}

// newScenarioFixture generates the simple counter through code generation
// and loads the given scenarios from the workspace.
func newScenarioFixture(t *testing.T, dom stagekit.Domain, scenarios map[string]string) *stagetest.BuildFixture {
	t.Helper()
	f := stagetest.NewBuildFixture(t, dom, []planner.SubWorkItem{stagetest.SimpleItem()}, scenarios)
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})
	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	loaded, err := scenario.LoadScenarios(context.Background(), os.DirFS(f.Deps.Workspace), ".cogworks/scenarios")
	require.NoError(t, err)
	f.Deps.Scenarios = loaded
	f.Snap.Stage = pipeline.StageScenarioValidation
	return f
}

// TestAssertSCEN008_NoApplicableScenarioSkipsValidation: a scenario that
// covers another interface, runs another package and uses none of the
// change's symbols does not apply; the summary says why.
func TestAssertSCEN008_NoApplicableScenarioSkipsValidation(t *testing.T) {
	t.Parallel()
	toml, _ := countScenario("SCN-ELSE-001", "IF-ELSEWHERE", 1, 2, false)
	toml = strings.NewReplacer("./widgets", "./elsewhere", "widgets/zz", "elsewhere/zz").Replace(toml)
	test := "package elsewhere\n\nimport \"testing\"\n\nfunc TestScenarioCount(t *testing.T) {}\n"
	f := stagetest.NewBuildFixture(t, stagetest.StartGoServiceless{}, []planner.SubWorkItem{stagetest.SimpleItem()}, map[string]string{
		".cogworks/scenarios/SCN-ELSE-001.toml": toml, ".cogworks/scenarios/SCN-ELSE-001_test.go": test,
	})
	loaded, err := scenario.LoadScenarios(context.Background(), os.DirFS(f.Deps.Workspace), ".cogworks/scenarios")
	require.NoError(t, err)
	require.Len(t, loaded, 1)
	f.Deps.Scenarios = loaded
	f.Snap.CurrentSWI = "counter-simple"
	f.Snap.Stage = pipeline.StageScenarioValidation
	rec := f.Snap.SubWorkItem("counter-simple")
	rec.Committed = []string{stagetest.SimplePath}
	f.Env.Sim.SeedFiles(testenv.Repo.String(), stagekit.SWIBranch(f.Parent, *rec), map[string]string{stagetest.SimplePath: stagetest.SimpleCode})

	res, err := f.Run(t, pipeline.StageScenarioValidation)
	require.NoError(t, err, "skipped, not failed; the domain service is not called")
	assert.Equal(t, pipeline.EventDone, res.Event, "the pipeline proceeds towards review")
	assert.Contains(t, res.Summary, "skipped")
	assert.Contains(t, res.Summary, "SCN-ELSE-001: covers none of the change's interfaces, runs none of its packages and uses none of its exported symbols")
	assert.Contains(t, f.ScenarioComment(t), "**Skipped**")
	assert.Zero(t, f.Snap.SubWorkItem("counter-simple").RemediationCycles)
}

func TestAssertSCEN010_ScenarioResultsInAuditTrail(t *testing.T) {
	t.Parallel()
	toml, test := countScenario("SCN-CNT-001", "IF-COUNTER", 2, 2, true)
	f := newScenarioFixture(t, stagetest.StartGoService(t), map[string]string{
		".cogworks/scenarios/SCN-CNT-001.toml": toml, ".cogworks/scenarios/SCN-CNT-001_test.go": test,
	})
	for range 2 {
		require.NoError(t, f.Script.AddJSON("llm_judge", scenariostage.Judgement{Passed: true, Score: 0.9, Reasoning: "two after two"}))
	}

	res, err := f.Run(t, pipeline.StageScenarioValidation)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Contains(t, res.Summary, "passed")

	judged := f.Requests("llm_judge")
	require.Len(t, judged, 2, "one judgement per trajectory")
	assert.Contains(t, judged[0], "test TestScenarioCount: PASS", "the judge sees the observation")

	body := f.ScenarioComment(t)
	require.NotEmpty(t, body, "results are posted on the parent")
	assert.Contains(t, body, "**Passed** — overall satisfaction **1.00** (2 of 2 trajectories satisfied)")
	assert.Contains(t, body, "| SCN-CNT-001 | 1.00 | 2 | 2 |")

	assert.Equal(t, []bool{true, true}, f.Snap.ScenarioHistory["SCN-CNT-001"], "trust history persists in the snapshot")
}

func TestAssertSCEN006_BelowThresholdRemediatesWithoutScenarioSource(t *testing.T) {
	t.Parallel()
	toml, test := countScenario("SCN-CNT-002", "IF-COUNTER", 1, 3, false)
	f := newScenarioFixture(t, stagetest.StartGoService(t), map[string]string{
		".cogworks/scenarios/SCN-CNT-002.toml": toml, ".cogworks/scenarios/SCN-CNT-002_test.go": test,
	})
	f.Cfg.Budgets.ReviewMaxRemediationCycles = 1

	res, err := f.Run(t, pipeline.StageScenarioValidation)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventRemediate, res.Event, "failing details go back to code generation")
	assert.Equal(t, 1, f.Snap.SubWorkItem("counter-simple").RemediationCycles)
	fb := f.Snap.SubWorkItem("counter-simple").Feedback
	assert.Contains(t, fb, "SCN-CNT-002")
	assert.Contains(t, fb, "TestScenarioCount")
	assert.Contains(t, f.ScenarioComment(t), "**Failed** — overall satisfaction **0.00**")

	t.Run("code generation gets the feedback but never the scenario", func(t *testing.T) {
		f.Snap.Stage = pipeline.StageCodeGeneration
		f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})
		_, err := f.Run(t, pipeline.StageCodeGeneration)
		require.NoError(t, err)
		reqs := f.Requests("code_generation")
		last := reqs[len(reqs)-1]
		assert.Contains(t, last, "Scenario validation failed")
		assert.NotContains(t, last, "HOLDOUT")
		assert.Empty(t, f.Snap.SubWorkItem("counter-simple").Feedback, "consumed")
	})

	t.Run("after the remediation budget it escalates", func(t *testing.T) {
		f.Snap.Stage = pipeline.StageScenarioValidation
		_, err := f.Run(t, pipeline.StageScenarioValidation)
		var esc *escalation.Error
		require.ErrorAs(t, err, &esc)
		assert.Contains(t, esc.Reason, "1 remediation cycles")
		require.Len(t, esc.Attempts, 1)
		assert.Contains(t, strings.Join(esc.Attempts[0].Diagnostics, "\n"), "SCN-CNT-002")
	})
}
