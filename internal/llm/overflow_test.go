package llm

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
)

// TestContextOverflowIsTyped: a prompt over the context window is a
// *ContextOverflowError with the figures, sent once, and not called a
// configuration error. Before, it was a KindInvalidRequest
// ProviderError reading "a configuration error — check the model name".
func TestContextOverflowIsTyped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file    string
		provider      func(*wireServer) Provider
		model         string
		prompt, limit int
	}{
		{"anthropic", "anthropic_prompt_too_long.json", anthropicProvider, "claude-sonnet-4-6", 215734, 200000},
		{"openai chat", "openai_context_length.json", openaiProvider, "gpt-4.1-mini", 130532, 128000},
		{"openai responses", "openai_responses_context_length.json", openaiProvider, "gpt-5-pro", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, recorded(t, 400, tt.file, nil))
			g, sleeps, _ := newTestGateway(tt.provider(ws))
			g.Model = tt.model
			var out classify.Classification
			_, err := g.Structured(context.Background(), intakeCall(), &out)
			var overflow *ContextOverflowError
			require.ErrorAs(t, err, &overflow)
			assert.Equal(t, tt.prompt, overflow.PromptTokens)
			assert.Equal(t, tt.limit, overflow.Limit)
			assert.Equal(t, 1, ws.count(), "the same prompt is not sent again")
			assert.Empty(t, sleeps.Recorded())
			assert.NotContains(t, err.Error(), "configuration error")
			assert.Contains(t, err.Error(), "context window")
			var pe *ProviderError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, KindContextOverflow, pe.Kind)
			assert.False(t, pe.Transient())
		})
	}
}

func TestOtherBadRequestsStayConfigurationErrors(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, reply{status: 400, body: `{"error":{"type":"invalid_request_error","message":"model: claude-nope not found"}}`})
	_, err := anthropicProvider(ws).Complete(context.Background(), Request{Model: "claude-nope", Messages: []Message{{Role: RoleUser, Content: "x"}}, MaxTokens: 8})
	var overflow *ContextOverflowError
	assert.False(t, errors.As(err, &overflow))
	var pe *ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, KindInvalidRequest, pe.Kind)
}

func TestContextOverflowSmallerBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		prompt, limit int
		packed, want  int
	}{
		{"the excess and a tenth of the limit cut more than the scaling (150,184)", 215734, 200000, 180000, 144266},
		// 40,000 of context in a 215,000-token prompt: scaling it to
		// 33,488 would leave the prompt over; the excess and margin go.
		{"less the excess when the context is a small part", 215000, 200000, 40000, 5000},
		{"never below zero", 300000, 200000, 40000, 0},
		{"no figures", 0, 0, 180000, 135000},
		{"only the limit", 0, 128000, 100000, 75000},
	}
	for _, tt := range tests {
		e := &ContextOverflowError{PromptTokens: tt.prompt, Limit: tt.limit}
		got := e.SmallerBudget(tt.packed)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Less(t, got, tt.packed, tt.name)
	}
}
