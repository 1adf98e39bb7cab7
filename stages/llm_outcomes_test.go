package stages_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestRefusalAndTruncationEndTheStageWithTheirReason: a refusal costs one
// request and a truncation two, neither is retried as a schema error or
// as an outage, and the stage's error names what happened.
func TestRefusalAndTruncationEndTheStageWithTheirReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answers  []llm.ScriptedAnswer
		Requests int
		want     string
	}{
		{"refusal", []llm.ScriptedAnswer{{Stop: llm.StopRefused, Refusal: "I can't help with that."}}, 1, "refused to answer classify: I can't help with that."},
		{"truncation", []llm.ScriptedAnswer{{Stop: llm.StopTruncated}, {Stop: llm.StopTruncated}}, 2, "cut off at the output limit twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := stagetest.NewFHFixture(t, nil)
			for _, a := range tt.answers {
				f.Script.AddAnswer(prompts.Classify, a)
			}
			f.AddJSON(t, prompts.Classify, stagetest.SampleClassification) // never reached
			snap := f.Snapshot()
			_, err := f.Run(t, pipeline.StageIntake, snap)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, tt.Requests, f.Requests(prompts.Classify))
			var transient interface{ Transient() bool }
			assert.False(t, errors.As(err, &transient) && transient.Transient())
			var te *engine.TransientError
			assert.False(t, errors.As(err, &te))
		})
	}
}
