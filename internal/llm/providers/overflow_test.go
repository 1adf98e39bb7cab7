package providers

import (
	"context"
	"errors"
	"testing"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContextOverflowIsTyped: a prompt over the context window is a
// *ContextOverflowError with the figures, sent once, and not called a
// configuration error. Before, it was a KindInvalidRequest
// ProviderError reading "a configuration error — check the model name".
func TestContextOverflowIsTyped(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file    string
		provider      func(*wireServer) llm.Provider
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
			var overflow *llm.ContextOverflowError
			require.ErrorAs(t, err, &overflow)
			assert.Equal(t, tt.prompt, overflow.PromptTokens)
			assert.Equal(t, tt.limit, overflow.Limit)
			assert.Equal(t, 1, ws.count(), "the same prompt is not sent again")
			assert.Empty(t, sleeps.Recorded())
			assert.NotContains(t, err.Error(), "configuration error")
			assert.Contains(t, err.Error(), "context window")
			var pe *llm.ProviderError
			require.True(t, errors.As(err, &pe))
			assert.Equal(t, llm.KindContextOverflow, pe.Kind)
			assert.False(t, pe.Transient())
		})
	}
}

func TestOtherBadRequestsStayConfigurationErrors(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, reply{status: 400, body: `{"error":{"type":"invalid_request_error","message":"model: claude-nope not found"}}`})
	_, err := anthropicProvider(ws).Complete(context.Background(), llm.Request{Model: "claude-nope", Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, MaxTokens: 8})
	var overflow *llm.ContextOverflowError
	assert.False(t, errors.As(err, &overflow))
	var pe *llm.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, llm.KindInvalidRequest, pe.Kind)
}
