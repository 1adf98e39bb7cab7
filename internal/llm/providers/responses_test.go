package providers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
)

// TestResponsesOnlyModelUsesTheResponsesAPI: a model the table marks
// "mode": "responses" is sent to /responses with the Responses body
// (instructions, input, text.format json_schema strict, max_output_tokens,
// reasoning.effort). Before this change it went to /chat/completions,
// which refuses it, and the refusal read as a configuration error.
func TestResponsesOnlyModelUsesTheResponsesAPI(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, recorded(t, 200, "openai_responses.json", nil))
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL + "/v1", APIKey: "k", HTTPClient: ws.Client(), ReasoningEffort: "high"})
	g.Model = "gpt-5-pro"
	g.Budget = llm.Budget{Prices: llm.BuiltinPrices()}
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, "bug_fix", string(out.Type))
	require.Equal(t, []string{"/v1/responses"}, ws.paths)
	body := ws.body(0)
	assert.Equal(t, "gpt-5-pro", body["model"])
	assert.Equal(t, "You are a careful assistant for classify.", body["instructions"])
	assert.Equal(t, false, body["store"])
	assert.Equal(t, map[string]any{"effort": "high"}, body["reasoning"])
	assert.NotContains(t, body, "messages")
	assert.NotContains(t, body, "response_format")
	assert.NotContains(t, body, "max_completion_tokens")
	assert.Contains(t, body, "max_output_tokens")
	format := body["text"].(map[string]any)["format"].(map[string]any)
	assert.Equal(t, "json_schema", format["type"])
	assert.Equal(t, true, format["strict"])
	assert.Equal(t, "classification", format["name"])
	assert.Contains(t, format["schema"], "properties")
	input := body["input"].([]any)
	require.Len(t, input, 1)
	assert.Equal(t, "user", input[0].(map[string]any)["role"])
	// Usage: input_tokens include the cached ones.
	assert.Equal(t, 3000, rec.InputTokens)
	assert.Equal(t, 2048, rec.CacheReadTokens)
	assert.Equal(t, 900, rec.OutputTokens)
	assert.Positive(t, rec.CostUSD, "gpt-5-pro is priced")
}

func TestResponsesIncompleteIsTruncation(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, recorded(t, 200, "openai_responses_incomplete.json", nil))
	p := &OpenAI{BaseURL: ws.URL + "/v1", APIKey: "k", HTTPClient: ws.Client(), Model: "o3-pro"}
	resp, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}},
		Schema: []byte(`{"type":"object","properties":{}}`), SchemaName: "s", MaxTokens: 4096})
	require.NoError(t, err)
	assert.Equal(t, llm.StopTruncated, resp.Stop)
	assert.Equal(t, 4096, resp.OutputTokens)
	assert.Equal(t, []string{"/v1/responses"}, ws.paths)
}

// TestChatModelsStayOnChatCompletions: the table's "chat" mode and the
// local servers keep /chat/completions; reasoning effort reaches chat
// reasoning models as reasoning_effort.
func TestChatModelsStayOnChatCompletions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flavor, model, effort string
	}{
		{llm.ProviderOpenAI, "gpt-5.4", "low"},
		{llm.ProviderOpenAI, "gpt-4.1-mini", ""},
		{llm.ProviderOllama, "gpt-5-pro", ""}, // a local server named like a hosted model
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, openaiReply("OK"))
			p := &OpenAI{BaseURL: ws.URL + "/v1", Flavor: tt.flavor, Model: tt.model, HTTPClient: ws.Client(), ReasoningEffort: "low"}
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "ping"}}, MaxTokens: 16})
			require.NoError(t, err)
			assert.Equal(t, []string{"/v1/chat/completions"}, ws.paths)
			if tt.effort != "" {
				assert.Equal(t, tt.effort, ws.body(0)["reasoning_effort"])
			} else {
				assert.NotContains(t, ws.body(0), "reasoning_effort")
			}
		})
	}
}
