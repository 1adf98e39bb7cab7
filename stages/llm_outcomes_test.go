package stages

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
)

// TestRefusalAndTruncationEndTheStageWithTheirReason: a refusal costs one
// request and a truncation two, neither is retried as a schema error or
// as an outage, and the stage's error names what happened.
func TestRefusalAndTruncationEndTheStageWithTheirReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		answers  []llm.ScriptedAnswer
		requests int
		want     string
	}{
		{"refusal", []llm.ScriptedAnswer{{Stop: llm.StopRefused, Refusal: "I can't help with that."}}, 1, "refused to answer classify: I can't help with that."},
		{"truncation", []llm.ScriptedAnswer{{Stop: llm.StopTruncated}, {Stop: llm.StopTruncated}}, 2, "cut off at the output limit twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFHFixture(t, nil)
			for _, a := range tt.answers {
				f.script.AddAnswer(prompts.Classify, a)
			}
			f.addJSON(t, prompts.Classify, sampleClassification) // never reached
			snap := f.snapshot()
			_, err := f.run(t, pipeline.StageIntake, snap)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, tt.requests, f.requests(prompts.Classify))
			var transient interface{ Transient() bool }
			assert.False(t, errors.As(err, &transient) && transient.Transient())
			var te *engine.TransientError
			assert.False(t, errors.As(err, &te))
		})
	}
}
