package providers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`)
}

func TestAnthropicToolUseWireFormat(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, anthropicToolReply("verdict", `{"ok":true}`))
	p := &Anthropic{BaseURL: ws.URL, APIKey: "sk-ant-test", Model: "claude-default", HTTPClient: ws.Client()}

	resp, err := p.Complete(context.Background(), llm.Request{
		System:     "sys",
		Messages:   []llm.Message{{Role: llm.RoleUser, Content: "hello"}},
		Schema:     testSchema(),
		SchemaName: "verdict",
		MaxTokens:  256,
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(resp.Content))
	assert.Equal(t, 120, resp.InputTokens)
	assert.Equal(t, 40, resp.OutputTokens)
	assert.Equal(t, "claude-test", resp.Model)

	require.Equal(t, 1, ws.count())
	assert.Equal(t, "/v1/messages", ws.paths[0])
	assert.Equal(t, "sk-ant-test", ws.headers[0].Get("x-api-key"))
	assert.Equal(t, "2023-06-01", ws.headers[0].Get("anthropic-version"))
	body := ws.body(0)
	assert.Equal(t, "claude-default", body["model"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "sys", "cache_control": map[string]any{"type": "ephemeral"}}}, body["system"],
		"the system prompt is the cached prefix")
	assert.EqualValues(t, 256, body["max_tokens"])
	assert.Equal(t, map[string]any{"type": "tool", "name": "verdict"}, body["tool_choice"])
	tools := body["tools"].([]any)
	require.Len(t, tools, 1)
	tool := tools[0].(map[string]any)
	assert.Equal(t, "verdict", tool["name"])
	var wantSchema map[string]any
	require.NoError(t, json.Unmarshal(testSchema(), &wantSchema))
	assert.Equal(t, wantSchema, tool["input_schema"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "hello"}}}}, body["messages"])
}

func TestOpenAIJSONSchemaWireFormat(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, openaiReply(`{"ok":false}`))
	p := &OpenAI{BaseURL: ws.URL + "/v1", APIKey: "sk-test", Model: "gpt-default", HTTPClient: ws.Client()}

	resp, err := p.Complete(context.Background(), llm.Request{
		System:     "sys",
		Messages:   []llm.Message{{Role: llm.RoleUser, Content: "hello"}},
		Schema:     testSchema(),
		SchemaName: "verdict",
		MaxTokens:  64,
		Model:      "qwen2.5",
	})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":false}`, string(resp.Content))
	assert.Equal(t, 100, resp.InputTokens)
	assert.Equal(t, 30, resp.OutputTokens)

	assert.Equal(t, "/v1/chat/completions", ws.paths[0])
	assert.Equal(t, "Bearer sk-test", ws.headers[0].Get("Authorization"))
	body := ws.body(0)
	assert.Equal(t, "qwen2.5", body["model"], "request model overrides the default")
	assert.Equal(t, []any{
		map[string]any{"role": "system", "content": "sys"},
		map[string]any{"role": "user", "content": "hello"},
	}, body["messages"])
	rf := body["response_format"].(map[string]any)
	assert.Equal(t, "json_schema", rf["type"])
	js := rf["json_schema"].(map[string]any)
	assert.Equal(t, "verdict", js["name"])
	assert.Equal(t, true, js["strict"])
	assert.NotNil(t, js["schema"])
}

func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider func(ws *wireServer) llm.Provider
		rep      reply
		reason   string
	}{
		{
			name: "anthropic text instead of tool_use",
			provider: func(ws *wireServer) llm.Provider {
				return &Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()}
			},
			rep:    reply{status: 200, body: `{"model":"m","content":[{"type":"text","text":"I think it is a bug"}],"stop_reason":"end_turn","usage":{"input_tokens":5,"output_tokens":6}}`},
			reason: "no tool_use block",
		},
		{
			name: "openai content not JSON",
			provider: func(ws *wireServer) llm.Provider {
				return &OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()}
			},
			rep:    openaiReply("Sure! Here is the answer: ok"),
			reason: "holds no JSON object",
		},
		{
			name: "openai no choices",
			provider: func(ws *wireServer) llm.Provider {
				return &OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()}
			},
			rep:    reply{status: 200, body: `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`},
			reason: "no choices",
		},
		{
			name: "body not JSON",
			provider: func(ws *wireServer) llm.Provider {
				return &Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()}
			},
			rep:    reply{status: 200, body: `<html>gateway</html>`},
			reason: "not a Messages API answer",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, tt.rep)
			_, err := tt.provider(ws).Complete(context.Background(), llm.Request{
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Schema: testSchema(), SchemaName: "verdict", MaxTokens: 10,
			})
			var me *llm.MalformedError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, me.Reason, tt.reason)
		})
	}
}

func TestOpenAIStripsCodeFence(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, openaiReply("```json\n{\"ok\":true}\n```"))
	p := &OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()}
	resp, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, Schema: testSchema(), SchemaName: "v"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(resp.Content))
}

func TestProviderErrorClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		rep        reply
		retryable  bool
		retryAfter time.Duration
	}{
		{"429 with Retry-After seconds", reply{status: 429, headers: map[string]string{"Retry-After": "2"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`}, true, 2 * time.Second},
		{"429 with retry-after-ms", reply{status: 429, headers: map[string]string{"retry-after-ms": "1500"}}, true, 1500 * time.Millisecond},
		{"500", reply{status: 500, body: `{"error":{"message":"boom"}}`}, true, 0},
		{"503", reply{status: 503}, true, 0},
		{"529 overloaded", reply{status: 529, body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}, true, 0},
		{"400", reply{status: 400, body: `{"error":{"message":"bad schema"}}`}, false, 0},
		{"401", reply{status: 401}, false, 0},
		{"403", reply{status: 403}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, tt.rep)
			p := &Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()}
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, MaxTokens: 1})
			var pe *llm.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.rep.status, pe.Status)
			assert.Equal(t, tt.retryable, pe.Retryable)
			assert.Equal(t, tt.retryAfter, pe.RetryAfter)
		})
	}
}

// TestProviderTimeoutIsTransient: a request that times out after it was
// written is transient (a later invocation may succeed) and marked Sent,
// because the provider may have billed it. Streamed answers time out on
// silence (IdleTimeout), local servers on HTTPClient's Timeout.
func TestProviderTimeoutIsTransient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, flavor, message string
		idle, timeout         time.Duration
	}{
		{"streamed", llm.ProviderOpenAI, "stream idle timeout", 30 * time.Millisecond, 0},
		{"local server", llm.ProviderOllama, "timeout", 0, 30 * time.Millisecond},
		{"not streamed", llm.ProviderOpenAI, "timeout", 0, 30 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, reply{status: 200, delay: 300 * time.Millisecond, body: `{}`})
			client := ws.Client()
			client.Timeout = tt.timeout
			p := &OpenAI{BaseURL: ws.URL, Flavor: tt.flavor, Model: "gpt-5.4", HTTPClient: client, Stream: tt.idle > 0, IdleTimeout: tt.idle}
			_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
			var pe *llm.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.True(t, pe.Retryable)
			assert.True(t, pe.Sent, "the request was written before the time-out")
			assert.Contains(t, pe.Message, tt.message)
		})
	}
}

func TestProviderCallerCancellationIsNotTransient(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, reply{status: 200, delay: 300 * time.Millisecond, body: `{}`})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	p := &OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()}
	_, err := p.Complete(ctx, llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	var pe *llm.ProviderError
	assert.False(t, errors.As(err, &pe))
}

func TestParseRetryAfterHTTPDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("Retry-After", now.Add(7*time.Second).Format(http.TimeFormat))
	assert.Equal(t, 7*time.Second, parseRetryAfter(h, now))
	h.Set("Retry-After", "soon")
	assert.Equal(t, time.Duration(0), parseRetryAfter(h, now))
}

// TestPingParametersPerFlavor is the request `cogworks doctor` sends (no
// schema, a tiny limit): OpenAI's reasoning models refuse max_tokens.
func TestPingParametersPerFlavor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		flavor, model, want, absent string
	}{
		{llm.ProviderOpenAI, "gpt-5.4", "max_completion_tokens", "max_tokens"},
		{llm.ProviderOpenAI, "o3-mini", "max_completion_tokens", "max_tokens"},
		{llm.ProviderOpenAI, "gpt-4.1-mini", "max_completion_tokens", "max_tokens"},
		{llm.ProviderOllama, "qwen3-coder:30b", "max_tokens", "max_completion_tokens"},
		{llm.ProviderVLLM, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "max_tokens", "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.flavor+" "+tt.model, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, openaiReply("OK"))
			p := &OpenAI{BaseURL: ws.URL, Flavor: tt.flavor, Model: tt.model, HTTPClient: ws.Client()}
			resp, err := p.Complete(context.Background(), llm.Request{System: "check", Messages: []llm.Message{{Role: llm.RoleUser, Content: "ping"}}, MaxTokens: 16})
			require.NoError(t, err)
			assert.Equal(t, "OK", resp.Text)
			body := ws.body(0)
			assert.EqualValues(t, 16, body[tt.want])
			assert.NotContains(t, body, tt.absent)
			assert.NotContains(t, body, "response_format")
		})
	}
}

// TestServerRetryAdviceIsHonoured: 409 is retried and x-should-retry
// overrides the status code, as both official SDKs do.
func TestServerRetryAdviceIsHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		status    int
		header    string
		retryable bool
	}{
		{"409 conflict", 409, "", true},
		{"400 with x-should-retry true", 400, "true", true},
		{"503 with x-should-retry false", 503, "false", false},
		{"500 without advice", 500, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			headers := map[string]string{}
			if tt.header != "" {
				headers["x-should-retry"] = tt.header
			}
			ws := newWireServer(t, reply{status: tt.status, headers: headers, body: `{"error":{"type":"api_error","message":"m"}}`})
			_, err := anthropicProvider(ws).Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, MaxTokens: 8})
			var pe *llm.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.retryable, pe.Retryable)
			assert.False(t, pe.Sent, "an answered request is classified by its answer")
		})
	}
}
