package stagekit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestGatewayBooksIntoSnapshotLedger(t *testing.T) {
	t.Parallel()
	script := llm.NewScripted()
	for range 3 {
		require.NoError(t, script.AddJSON(prompts.Classify, stagetest.SampleClassification))
	}
	d := stagekit.Deps{LLM: llm.NewGateway(script, prompts.Set{})}
	snap := pipeline.NewSnapshot("acme/widgets", 1)
	snap.SubWorkItems = []pipeline.SWI{{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}}}
	vars := map[string]any{"Title": "t", "Body": "b", "Modules": []string{"counter"}}
	for _, call := range []llm.Call{
		{Stage: "intake", Template: prompts.Classify, Vars: vars},
		{Stage: "code-generation", SWI: "swi-1", Template: prompts.Classify, Vars: vars},
	} {
		var out classify.Classification
		_, err := d.Gateway(engine.StageInput{Snapshot: &snap}).Structured(context.Background(), call, &out)
		require.NoError(t, err)
	}
	require.Equal(t, 1, snap.Ledger.PerStage["intake"].Calls)
	require.Equal(t, 1, snap.Ledger.PerStage["code-generation"].Calls)
	require.Equal(t, snap.Ledger.PerStage["code-generation"], snap.SubWorkItems[0].Usage, "booked in the SWI's record")
	assert.Len(t, snap.SubWorkItems, 1, "stage-level calls book no SWI")

	// A budget below what was already spent refuses the next call before
	// sending it: the spend read back from the snapshot counts.
	spent, _ := pipeline.NewLedgerBook(&snap).Spent()
	want := 0
	for _, u := range snap.Ledger.PerStage {
		want += u.InputTokens + u.OutputTokens
	}
	assert.Equal(t, want, spent)
	d.LLM.Budget = llm.Budget{MaxTokens: spent + 10}
	requests := len(script.Requests())
	var out classify.Classification
	_, err := d.Gateway(engine.StageInput{Snapshot: &snap}).Structured(context.Background(), llm.Call{Stage: "intake", Template: prompts.Classify, Vars: vars}, &out)
	var be *llm.BudgetExceededError
	require.True(t, errors.As(err, &be), "%v", err)
	assert.Equal(t, requests, len(script.Requests()), "nothing was sent")

	// RunAttempts turns the refusal into the budget escalation.
	_, err = stagekit.RunAttempts(context.Background(), pipeline.StageIntake, 3, func(context.Context, string) (string, []string, error) {
		return "", nil, err
	})
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc))
	assert.Equal(t, "cost budget exceeded", esc.Reason)
	require.Len(t, esc.Attempts, 1)
	assert.Contains(t, esc.Attempts[0].Summary, "budget exceeded at intake")
}

func TestGatewayWithoutLLMFailsClearly(t *testing.T) {
	t.Parallel()
	snap := pipeline.NewSnapshot("acme/widgets", 1)
	var out classify.Classification
	_, err := stagekit.Deps{}.Gateway(engine.StageInput{Snapshot: &snap}).Structured(context.Background(), llm.Call{Template: prompts.Classify}, &out)
	assert.ErrorContains(t, err, "no provider configured")
}

func TestRunAttemptsFeedsProblemsAndEscalatesWithEveryAttempt(t *testing.T) {
	t.Parallel()
	var feedbacks []string
	_, err := stagekit.RunAttempts(context.Background(), pipeline.StageArchitecture, 3, func(_ context.Context, fb string) (string, []string, error) {
		feedbacks = append(feedbacks, fb)
		return "bad", []string{"problem " + string(rune('A'+len(feedbacks)-1))}, nil
	})
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc))
	assert.Contains(t, esc.Reason, "after 3 attempts")
	require.Len(t, esc.Attempts, 3)
	assert.Equal(t, []string{"problem C"}, esc.Attempts[2].Diagnostics)
	assert.Equal(t, "", feedbacks[0])
	assert.Contains(t, feedbacks[1], "- problem A")
	assert.Contains(t, feedbacks[2], "- problem B")
}
