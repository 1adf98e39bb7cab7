package architecture_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func overflowAnswer(prompt, limit int) llm.ScriptedAnswer {
	return llm.ScriptedAnswer{Err: &llm.ContextOverflowError{Provider: "openai", PromptTokens: prompt, Limit: limit,
		Err: &llm.ProviderError{Provider: "openai", Status: 400, Kind: llm.KindContextOverflow, Message: "context_length_exceeded"}}}
}

// TestArchitectureRepacksOnOverflow: refused as over the model's window,
// the specification prompt is repacked with the smaller budget the
// refusal's figures give (the ADRs and standards go) and sent once more;
// refused again, the stage escalates with both figures. Before, the first
// refusal ended the stage.
func TestArchitectureRepacksOnOverflow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		escalates bool
	}{
		{name: "fits repacked"},
		{name: "refused again", escalates: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stagetest.NewFHFixture(t, nil)
			f.Cfg.Constraints = stagetest.SpecConstraints
			f.Script.AddAnswer(prompts.Architecture, overflowAnswer(140000, 128000))
			if tt.escalates {
				f.Script.AddAnswer(prompts.Architecture, overflowAnswer(129000, 128000))
			} else {
				f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
			}
			snap := f.Snapshot()
			snap.Classification = &stagetest.SampleClassification
			_, err := f.Run(t, pipeline.StageArchitecture, snap)
			require.Equal(t, 2, f.Requests(prompts.Architecture), "sent, repacked, sent once more")
			first, second := f.UserPrompt(t, prompts.Architecture, 0), f.UserPrompt(t, prompts.Architecture, 1)
			assert.Contains(t, first, "brake never imports telemetry")
			assert.NotContains(t, second, "brake never imports telemetry", "the repack dropped the ADR")
			if !tt.escalates {
				require.NoError(t, err)
				return
			}
			var esc *escalation.Error
			require.ErrorAs(t, err, &esc)
			assert.Equal(t, contextpack.CodeContextOverflow, esc.Code)
			assert.Contains(t, esc.Reason, "140000 tokens, the model takes 128000")
			assert.Contains(t, esc.Reason, "129000 tokens, the model takes 128000")
		})
	}
}

// TestArchitectureRepackHoldsForLaterAttempts: once repacked, a later
// attempt (after a specification the checks rejected) is sent at the
// smaller size straight away, not refused at the old size first.
func TestArchitectureRepackHoldsForLaterAttempts(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Cfg.Constraints = stagetest.SpecConstraints
	bad := stagetest.ValidSpec()
	bad.AffectedModules = append(bad.AffectedModules, architecture.SpecModule{Name: "odometer"})
	f.Script.AddAnswer(prompts.Architecture, overflowAnswer(140000, 128000))
	f.AddJSON(t, prompts.Architecture, bad)
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	snap := f.Snapshot()
	snap.Classification = &stagetest.SampleClassification
	_, err := f.Run(t, pipeline.StageArchitecture, snap)
	require.NoError(t, err)
	require.Equal(t, 3, f.Requests(prompts.Architecture), "refused, repacked and rejected, then accepted: no second refusal")
	third := f.UserPrompt(t, prompts.Architecture, 2)
	assert.Contains(t, third, "odometer", "the third prompt carries the rejection's feedback")
	assert.NotContains(t, third, "brake never imports telemetry", "and the smaller context")
}
