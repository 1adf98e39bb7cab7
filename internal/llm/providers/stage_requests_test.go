package providers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/llm/providers"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/scenario"
)

// stageCall is one LLM call a stage makes: its template, the schema name
// it asks for and the Go type the answer is decoded into.
type stageCall struct {
	template, schemaName string
	out                  func() any
}

// stageCalls lists every structured LLM call of the pipeline, as the
// stages make them.
func stageCalls() []stageCall {
	return []stageCall{
		{prompts.Classify, "", func() any { return new(classify.Classification) }},
		{prompts.Architecture, "", func() any { return new(architecture.Specification) }},
		{prompts.InterfaceDesign, "", func() any { return new(interfaces.Interfaces) }},
		{prompts.Planning, "", func() any { return new(planner.Plan) }},
		{prompts.CodeGeneration, "code", func() any { return new(codegen.CodeOutput) }},
		{prompts.InterpretFailure, "interpretation", func() any { return new(codegen.Interpretation) }},
		{prompts.ReviewQuality, "review", func() any { return new(review.ReviewOutput) }},
		{prompts.ReviewArchitecture, "review", func() any { return new(review.ReviewOutput) }},
		{prompts.ReviewSecurity, "review", func() any { return new(review.ReviewOutput) }},
		{prompts.LLMJudge, "judgement", func() any { return new(scenario.Judgement) }},
	}
}

func TestEveryStageCallIsListed(t *testing.T) {
	var names []string
	for _, c := range stageCalls() {
		names = append(names, c.template)
	}
	assert.ElementsMatch(t, prompts.Names(), names, "a new template needs its output type here")
}

// TestEveryOutputSchemaPassesOpenAIStrictMode walks every output schema
// with OpenAI's strict-mode rules; the architecture schema failed them
// (proposed_values was optional), failing every OpenAI run at its second
// stage.
func TestEveryOutputSchemaPassesOpenAIStrictMode(t *testing.T) {
	for _, c := range stageCalls() {
		t.Run(c.template, func(t *testing.T) {
			s, err := llm.SchemaFor(reflect.TypeOf(c.out()))
			require.NoError(t, err)
			assert.Empty(t, llm.StrictViolations(s.JSON))
		})
	}
}

// conformanceProvider is one provider configuration the requests are
// rendered for.
type conformanceProvider struct {
	name     string
	provider string
	model    string
	path     string // the endpoint the provider must call
}

func conformanceProviders() []conformanceProvider {
	return []conformanceProvider{
		{"anthropic", llm.ProviderAnthropic, "claude-sonnet-4-6", "/v1/messages"},
		{"openai-chat", llm.ProviderOpenAI, "gpt-4.1-mini", "/v1/chat/completions"},
		{"openai-reasoning", llm.ProviderOpenAI, "gpt-5.4", "/v1/chat/completions"},
		{"ollama", llm.ProviderOllama, "qwen3-coder:30b", "/v1/chat/completions"},
		{"vllm", llm.ProviderVLLM, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "/v1/chat/completions"},
	}
}

// goldenPrompt reads the rendered system and user prompt of a template
// from the prompts package's golden files, so these requests follow the
// real templates.
func goldenPrompt(t *testing.T, template string) (string, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "prompts", "testdata", template+".golden"))
	require.NoError(t, err)
	rest, ok := strings.CutPrefix(string(data), "=== system ===\n")
	require.True(t, ok)
	system, user, ok := strings.Cut(rest, "\n=== user ===\n")
	require.True(t, ok)
	return system, user
}

// rejectingServer records each request body and answers it the way the
// APIs answer a request they refuse (HTTP 400 invalid_request_error).
type rejectingServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	paths  []string
}

func newRejectingServer(t *testing.T) *rejectingServer {
	t.Helper()
	s := &rejectingServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"type":"invalid_request_error","message":"recorded by the conformance test"}}`)
	}))
	t.Cleanup(s.Close)
	return s
}

// TestProviderConformance renders every stage's real request for every
// provider, checks it against the official SDKs' request types
// (anthropic-sdk-go MessageNewParams, openai-go ChatCompletionNewParams:
// a field they do not know, or of the wrong shape, does not survive the
// round trip) and OpenAI's strict-mode and reasoning-model rules, and
// compares it with the golden body in testdata/provider-requests
// (UPDATE=1 rewrites them). The server answers 400 as the APIs do for a
// request they refuse, which must end the call after one request as a
// configuration error.
func TestProviderConformance(t *testing.T) {
	for _, cp := range conformanceProviders() {
		t.Run(cp.name, func(t *testing.T) {
			srv := newRejectingServer(t)
			base := srv.URL
			if cp.provider != llm.ProviderAnthropic {
				base += "/v1"
			}
			p, err := providers.FromConfig(llm.Config{Provider: cp.provider, BaseURL: base, APIKey: "sk-test", Model: cp.model, HTTPClient: srv.Client()})
			require.NoError(t, err)
			defaults, ok := config.ProviderDefaults(cp.provider)
			require.True(t, ok)
			for _, c := range stageCalls() {
				t.Run(c.template, func(t *testing.T) {
					system, user := goldenPrompt(t, c.template)
					g := llm.NewGateway(p, llm.RenderFunc(func(string, map[string]any) (string, string, error) { return system, user, nil }))
					g.Model, g.MaxTokens = cp.model, defaults.MaxTokens
					srv.mu.Lock()
					before := len(srv.bodies)
					srv.mu.Unlock()
					rec, err := g.Structured(context.Background(), llm.Call{Stage: "conformance", Template: c.template, SchemaName: c.schemaName}, c.out())
					var pe *llm.ProviderError
					require.ErrorAs(t, err, &pe)
					assert.Equal(t, llm.KindInvalidRequest, pe.Kind)
					assert.False(t, pe.Transient(), "a refused request is a configuration error, not an outage")
					assert.Equal(t, 1, rec.Attempts, "a refused request is not retried")

					srv.mu.Lock()
					require.Len(t, srv.bodies, before+1)
					body, path := srv.bodies[before], srv.paths[before]
					srv.mu.Unlock()
					assert.Equal(t, cp.path, path)
					checkConformance(t, cp, body)
					requestGolden(t, filepath.Join("testdata", "provider-requests", cp.name, c.template+".json"), body)
				})
			}
		})
	}
}

func checkConformance(t *testing.T, cp conformanceProvider, body []byte) {
	t.Helper()
	var doc map[string]any
	require.NoError(t, json.Unmarshal(body, &doc))
	if cp.provider == llm.ProviderAnthropic {
		var params anthropic.MessageNewParams
		require.NoError(t, json.Unmarshal(body, &params))
		again, err := json.Marshal(params)
		require.NoError(t, err)
		assert.JSONEq(t, string(body), string(again), "the body is exactly what anthropic-sdk-go's MessageNewParams can express")
		tools := doc["tools"].([]any)
		require.Len(t, tools, 1)
		tool := tools[0].(map[string]any)
		assert.Equal(t, "object", tool["input_schema"].(map[string]any)["type"])
		assert.Equal(t, map[string]any{"type": "tool", "name": tool["name"]}, doc["tool_choice"])
		system := doc["system"].([]any)
		assert.Equal(t, map[string]any{"type": "ephemeral"}, system[len(system)-1].(map[string]any)["cache_control"], "the stable prefix is cached")
		return
	}
	var params openai.ChatCompletionNewParams
	require.NoError(t, json.Unmarshal(body, &params))
	again, err := json.Marshal(params)
	require.NoError(t, err)
	assert.JSONEq(t, string(body), string(again), "the body is exactly what openai-go's ChatCompletionNewParams can express")
	rf := doc["response_format"].(map[string]any)
	assert.Equal(t, "json_schema", rf["type"])
	js := rf["json_schema"].(map[string]any)
	assert.Equal(t, true, js["strict"])
	schema, err := json.Marshal(js["schema"])
	require.NoError(t, err)
	assert.Empty(t, llm.StrictViolations(schema), "OpenAI strict mode accepts the schema")
	msgs := doc["messages"].([]any)
	assert.Equal(t, "user", msgs[len(msgs)-1].(map[string]any)["role"])
	switch cp.name {
	case "openai-reasoning":
		assert.Contains(t, doc, "max_completion_tokens")
		for _, unsupported := range []string{"max_tokens", "temperature", "top_p", "presence_penalty", "frequency_penalty", "logprobs", "top_logprobs", "logit_bias"} {
			assert.NotContains(t, doc, unsupported, "reasoning models refuse %s", unsupported)
		}
		assert.Equal(t, "developer", msgs[0].(map[string]any)["role"])
		assert.Contains(t, doc, "prompt_cache_key")
	case "openai-chat":
		assert.Contains(t, doc, "max_completion_tokens")
		assert.NotContains(t, doc, "max_tokens")
		assert.Equal(t, "system", msgs[0].(map[string]any)["role"])
		assert.Contains(t, doc, "prompt_cache_key")
	default: // local OpenAI-compatible servers
		assert.Contains(t, doc, "max_tokens")
		assert.NotContains(t, doc, "max_completion_tokens")
		assert.NotContains(t, doc, "prompt_cache_key")
		assert.Equal(t, "system", msgs[0].(map[string]any)["role"])
	}
}

// requestGolden compares body, indented with sorted keys, with the golden
// file, rewriting it when UPDATE=1.
func requestGolden(t *testing.T, path string, body []byte) {
	t.Helper()
	var doc any
	require.NoError(t, json.Unmarshal(body, &doc))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(doc))
	testkit.Golden(t, path, buf.String())
}

// TestReviewPassesShareACachedPrefix renders the three review passes of
// one sub-work-item for Anthropic: their system prompt and the block with
// the code under review must be identical and cache-marked, so the second
// and third pass read them from the cache instead of paying for them.
func TestReviewPassesShareACachedPrefix(t *testing.T) {
	assert.Equal(t, llm.CacheBreak, prompts.CacheBreak, "the template mark is the gateway's")
	srv := newRejectingServer(t)
	p := &providers.Anthropic{BaseURL: srv.URL, APIKey: "k", Model: "claude-sonnet-4-6", HTTPClient: srv.Client()}
	g := llm.NewGateway(p, prompts.Set{})
	swi := map[string]any{"id": "swi-1", "title": "Clamp brake pressure", "description": "Clamp requested pressure to [0, 1]."}
	files := []map[string]any{{"Path": "brake/clamp.go", "Content": strings.Repeat("package brake\n\nfunc Clamp(p float64) float64 { return min(max(p, 0), 1) }\n", 40)}}
	vars := map[string]any{"SWI": swi, "Files": files, "Spec": "## Summary\nAdd Clamp.", "Standards": "Doc every export.", "SafetyCritical": true, "Constraints": "brake must not import telemetry"}
	for _, tmpl := range []string{prompts.ReviewQuality, prompts.ReviewArchitecture, prompts.ReviewSecurity} {
		_, err := g.Structured(context.Background(), llm.Call{Stage: "review", Template: tmpl, Vars: vars, SchemaName: "review"}, new(review.ReviewOutput))
		require.Error(t, err)
	}
	require.Len(t, srv.bodies, 3)
	type block struct {
		Text         string          `json:"text"`
		CacheControl json.RawMessage `json:"cache_control"`
	}
	type body struct {
		System   []block `json:"system"`
		Messages []struct {
			Content []block `json:"content"`
		} `json:"messages"`
	}
	var got []body
	for _, raw := range srv.bodies {
		var b body
		require.NoError(t, json.Unmarshal(raw, &b))
		require.Len(t, b.Messages, 1)
		require.Len(t, b.Messages[0].Content, 2, "shared block, then the pass's own")
		assert.JSONEq(t, `{"type":"ephemeral"}`, string(b.Messages[0].Content[0].CacheControl))
		assert.NotContains(t, b.Messages[0].Content[0].Text+b.Messages[0].Content[1].Text, llm.CacheBreak)
		got = append(got, b)
	}
	for i := 1; i < 3; i++ {
		assert.Equal(t, got[0].System, got[i].System, "same system prompt")
		assert.Equal(t, got[0].Messages[0].Content[0], got[i].Messages[0].Content[0], "same code under review")
		assert.NotEqual(t, got[0].Messages[0].Content[1].Text, got[i].Messages[0].Content[1].Text, "each pass has its own criteria")
	}
	assert.Contains(t, got[0].Messages[0].Content[0].Text, "func Clamp")
}

// TestProviderConformanceStreamed: with streaming on (the default of
// `[llm] stream`), the hosted providers' request is the golden one plus
// "stream": true (and, for OpenAI, usage in the stream's last event), so
// every check above holds for the streamed request too.
func TestProviderConformanceStreamed(t *testing.T) {
	for _, cp := range conformanceProviders()[:3] {
		t.Run(cp.name, func(t *testing.T) {
			srv := newRejectingServer(t)
			base := srv.URL
			if cp.provider != llm.ProviderAnthropic {
				base += "/v1"
			}
			p, err := providers.FromConfig(llm.Config{Provider: cp.provider, BaseURL: base, APIKey: "sk-test", Model: cp.model, Stream: true, HTTPClient: srv.Client()})
			require.NoError(t, err)
			defaults, ok := config.ProviderDefaults(cp.provider)
			require.True(t, ok)
			c := stageCalls()[0]
			system, user := goldenPrompt(t, c.template)
			g := llm.NewGateway(p, llm.RenderFunc(func(string, map[string]any) (string, string, error) { return system, user, nil }))
			g.Model, g.MaxTokens = cp.model, defaults.MaxTokens
			_, err = g.Structured(context.Background(), llm.Call{Stage: "conformance", Template: c.template, SchemaName: c.schemaName}, c.out())
			require.Error(t, err)
			srv.mu.Lock()
			require.Len(t, srv.bodies, 1)
			body := srv.bodies[0]
			srv.mu.Unlock()
			var doc map[string]any
			require.NoError(t, json.Unmarshal(body, &doc))
			assert.Equal(t, true, doc["stream"])
			delete(doc, "stream")
			if cp.provider == llm.ProviderOpenAI {
				assert.Equal(t, map[string]any{"include_usage": true}, doc["stream_options"])
				delete(doc, "stream_options")
			}
			unstreamed, err := json.Marshal(doc)
			require.NoError(t, err)
			checkConformance(t, cp, unstreamed)
			want, err := os.ReadFile(filepath.Join("testdata", "provider-requests", cp.name, c.template+".json"))
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(unstreamed))
		})
	}
}
