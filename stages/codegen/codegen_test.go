package codegen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// lineOf is the 1-based line of the first occurrence of needle in s.
func lineOf(t *testing.T, s, needle string) int {
	t.Helper()
	i := strings.Index(s, needle)
	require.GreaterOrEqual(t, i, 0, "%q not found", needle)
	return strings.Count(s[:i], "\n") + 1
}

func TestAssertSCEN002_ScenariosNeverReachCodeGeneration(t *testing.T) {
	t.Parallel()
	secret := map[string]string{
		".cogworks/scenarios/counter.toml":    "id = \"SCN-1\" # HOLDOUT-MARKER-ONE\n",
		"widgets/scenarios/counter.toml":      "id = \"SCN-2\" # HOLDOUT-MARKER-TWO\n",
		"widgets/scenarios/counter_test.go.x": "// HOLDOUT-MARKER-THREE\n",
	}
	f := stagetest.NewBuildFixture(t, stagetest.StartGoService(t), []planner.SubWorkItem{stagetest.SimpleItem()}, secret)
	f.Cfg.Scenarios.Directory = "widgets/scenarios"
	f.Snap.Classification = &classify.Classification{AffectedModules: []string{"widgets", ".cogworks"}}
	f.Deps.Scenarios = []scenario.Scenario{{ID: "SCN-2", Description: "HOLDOUT-MARKER-FOUR", Covers: []string{"IF-COUNTER"}}}
	f.Cfg.Constraints = stagetest.SpecConstraints
	broken := strings.Replace(stagetest.SimpleCode, "return s.n }", `return "many" }`, 1)
	f.Code(t, map[string]string{stagetest.SimplePath: broken, stagetest.SimpleTestPath: stagetest.SimpleTest})
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode, stagetest.SimpleTestPath: stagetest.SimpleTest})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	reqs := f.Script.Requests()
	require.Len(t, reqs, 2)
	for i, r := range reqs {
		all := r.System
		for _, m := range r.Messages {
			all += m.Content
		}
		assert.Contains(t, all, "Package widgets holds small widgets", "request %d: module files are context", i)
		assert.Contains(t, all, "Write table-driven tests", "request %d: coding standards are context", i)
		assert.Contains(t, all, stagekit.ForbiddenImportsText(stagetest.SpecConstraints.ForbiddenImports), "request %d: constraints are context, in the one wording", i)
		assert.NotContains(t, all, "package other", "request %d: unrelated modules are not", i)
		for _, marker := range []string{"HOLDOUT-MARKER-ONE", "HOLDOUT-MARKER-TWO", "HOLDOUT-MARKER-THREE", "HOLDOUT-MARKER-FOUR"} {
			assert.NotContains(t, all, marker, "request %d carries scenario content", i)
		}
	}
}

func TestCodeGenerationWithNothingToStart(t *testing.T) {
	t.Parallel()
	items := []planner.SubWorkItem{{ID: "a"}, {ID: "b", DependsOn: []string{"a"}}}
	f := stagetest.NewBuildFixture(t, nil, items, nil)
	f.Deps.Domain = stagetest.StartGoServiceless{}
	f.Snap.SubWorkItems[0].Status = pipeline.SWIFailed

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	assert.Contains(t, esc.Reason, "b (pending)")

	for i := range f.Snap.SubWorkItems {
		f.Snap.SubWorkItems[i].Status = pipeline.SWICompleted
	}
	res, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventAllDone, res.Event)
	assert.Empty(t, f.Script.Requests())
}

func TestCodeGenerationBudgetRefusalEscalates(t *testing.T) {
	t.Parallel()
	f := stagetest.NewBuildFixture(t, stagetest.StartGoServiceless{}, []planner.SubWorkItem{stagetest.SimpleItem()}, nil)
	f.Deps.LLM.Budget.MaxTokens = 10
	f.Code(t, map[string]string{stagetest.SimplePath: stagetest.SimpleCode})
	_, err := f.Run(t, pipeline.StageCodeGeneration)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "got %v", err)
	assert.Equal(t, "cost budget exceeded", esc.Reason)
	require.Len(t, esc.Attempts, 1, "the refused attempt is in the audit trail, as in every stage's attempt loop")
	assert.Contains(t, esc.Attempts[0].Summary, "budget")
	assert.Empty(t, f.Script.Requests(), "the call is refused before it is sent")
}
