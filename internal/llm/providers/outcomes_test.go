package providers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
)

// recorded is a real-shaped provider answer from testdata/responses.
func recorded(t *testing.T, status int, name string, headers map[string]string) reply {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "responses", name))
	require.NoError(t, err)
	return reply{status: status, body: string(body), headers: headers}
}

// testToday pins the providers' clock, so a model the table retires
// later (gpt-4.1 on 2027-01-14) keeps working in these tests.
func testToday() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }

func anthropicProvider(ws *wireServer) llm.Provider {
	return &Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client(), now: testToday}
}

func openaiProvider(ws *wireServer) llm.Provider {
	return &OpenAI{BaseURL: ws.URL + "/v1", APIKey: "k", HTTPClient: ws.Client(), now: testToday}
}

func TestTruncatedAnswerGetsOneLargerRequestThenEscalates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		truncated string
		provider  func(*wireServer) llm.Provider
		good      reply
		limitKey  string
	}{
		{"anthropic", "anthropic_truncated.json", anthropicProvider, anthropicToolReply("classification", validClassification), "max_tokens"},
		{"openai", "openai_truncated.json", openaiProvider, openaiReply(validClassification), "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" recovers", func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, recorded(t, 200, tt.truncated, nil), tt.good)
			g, _, _ := newTestGateway(tt.provider(ws))
			g.MaxTokens, g.OutputLimit = 8192, 12000
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, classify.TypeBugFix, out.Type)
			assert.Equal(t, 2, rec.Attempts)
			assert.Equal(t, 1, rec.Truncations)
			assert.Equal(t, 0, rec.SchemaRetries, "truncation is not a schema violation")
			assert.EqualValues(t, 8192, ws.body(0)[tt.limitKey])
			assert.EqualValues(t, 12000, ws.body(1)[tt.limitKey], "doubled, capped at the model's output limit")
			msgs := ws.body(1)["messages"].([]any)
			assert.Contains(t, messageText(t, msgs[len(msgs)-1]), "cut off at the output limit of 8192 tokens")
		})
		t.Run(tt.name+" escalates", func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, recorded(t, 200, tt.truncated, nil), recorded(t, 200, tt.truncated, nil), tt.good)
			g, _, _ := newTestGateway(tt.provider(ws))
			g.MaxTokens = 8192
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			var te *llm.TruncatedError
			require.ErrorAs(t, err, &te)
			assert.Equal(t, 16384, te.MaxTokens)
			assert.Contains(t, err.Error(), "cut off at the output limit twice")
			assert.Equal(t, 2, rec.Attempts, "one extra request, never more")
			assert.Equal(t, 2, ws.count())
			var transient interface{ Transient() bool }
			assert.False(t, errors.As(err, &transient) && transient.Transient())
		})
	}
}

func TestRefusalEscalatesWithItsText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file string
		provider   func(*wireServer) llm.Provider
		want       string
	}{
		{"anthropic", "anthropic_refusal.json", anthropicProvider, "working exploit against a third-party system"},
		{"openai", "openai_refusal.json", openaiProvider, "I'm sorry, I can't help with that request."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, recorded(t, 200, tt.file, nil), anthropicToolReply("classification", validClassification))
			g, _, _ := newTestGateway(tt.provider(ws))
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			var re *llm.RefusalError
			require.ErrorAs(t, err, &re)
			assert.Contains(t, re.Text, tt.want)
			assert.Contains(t, err.Error(), "refused")
			assert.Equal(t, 1, rec.Attempts, "a refusal is not retried")
			assert.Equal(t, 0, rec.SchemaRetries)
		})
	}
}

func TestJSONAroundProseFencesAndThinkIsExtracted(t *testing.T) {
	t.Parallel()
	answers := map[string]string{
		"prose before":         "Sure! Here is the classification you asked for:\n" + validClassification,
		"fence with trailing":  "```json\n" + validClassification + "\n```\nLet me know if you need anything else.",
		"think block":          "<think>The user wants a classification. {not json} Brake is a module.</think>\n\n" + validClassification,
		"think then fence":     "<think>\nhmm\n</think>\n```\n" + validClassification + "\n```",
		"trailing prose":       validClassification + "\n\nThis is a small bug fix.",
		"brace in prose first": "The set {brake} is affected. " + validClassification,
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, openaiReply(answer))
			g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, Flavor: llm.ProviderOllama, HTTPClient: ws.Client()})
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, classify.TypeBugFix, out.Type)
			assert.Equal(t, 1, rec.Attempts, "no schema retry")
		})
	}
}

func TestProviderFailuresAreClassified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		provider  func(*wireServer) llm.Provider
		replies   []reply
		kind      llm.ErrorKind
		transient bool
		attempts  int
		sleeps    []time.Duration
		ok        bool
	}{
		{
			name: "429 with a long Retry-After fails the call for the next invocation", provider: openaiProvider,
			replies: []reply{recorded(t, 429, "openai_rate_limited.json", map[string]string{"Retry-After": "600"})},
			kind:    llm.KindTransient, transient: true, attempts: 1,
		},
		{
			name: "529 overloaded is retried", provider: anthropicProvider,
			replies:  []reply{recorded(t, 529, "anthropic_overloaded.json", nil), anthropicToolReply("classification", validClassification)},
			attempts: 2, sleeps: []time.Duration{time.Second}, ok: true,
		},
		{
			name: "OpenAI quota exhausted is not transient", provider: openaiProvider,
			replies: []reply{recorded(t, 429, "openai_quota.json", nil)},
			kind:    llm.KindQuota, attempts: 1,
		},
		{
			name: "Anthropic credit balance exhausted is not transient", provider: anthropicProvider,
			replies: []reply{recorded(t, 400, "anthropic_credit.json", nil)},
			kind:    llm.KindQuota, attempts: 1,
		},
		{
			name: "a schema strict mode refuses is a configuration error", provider: openaiProvider,
			replies: []reply{recorded(t, 400, "openai_bad_schema.json", nil)},
			kind:    llm.KindInvalidRequest, attempts: 1,
		},
		{
			name: "an unsupported parameter is a configuration error", provider: openaiProvider,
			replies: []reply{recorded(t, 400, "openai_max_tokens_unsupported.json", nil)},
			kind:    llm.KindInvalidRequest, attempts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, tt.replies...)
			g, sr, _ := newTestGateway(tt.provider(ws))
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			assert.Equal(t, tt.attempts, rec.Attempts)
			assert.Equal(t, tt.sleeps, sr.Recorded())
			if tt.ok {
				require.NoError(t, err)
				return
			}
			var pe *llm.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.kind, pe.Kind)
			var transient interface{ Transient() bool }
			assert.Equal(t, tt.transient, errors.As(err, &transient) && transient.Transient())
		})
	}
}

func TestCacheTokensArePricedAsSuch(t *testing.T) {
	t.Parallel()
	prices := llm.BuiltinPrices()
	tests := []struct {
		name, file, model string
		provider          func(*wireServer) llm.Provider
		in, read, write   int
		want              float64
	}{
		// Sonnet 4.6: $3 input, $0.30 cache read, $3.75 cache write, $15 output.
		{"anthropic", "anthropic_cached.json", "claude-sonnet-4-6", anthropicProvider, 12050, 10000, 2000,
			(50*3.0 + 10000*0.30 + 2000*3.75 + 100*15.0) / 1e6},
		// gpt-4.1: $2 input, $0.50 cached, $8 output; cached_tokens are part
		// of prompt_tokens.
		{"openai", "openai_cached.json", "gpt-4.1", openaiProvider, 12000, 10240, 0,
			(1760*2.0 + 10240*0.50 + 100*8.0) / 1e6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, recorded(t, 200, tt.file, nil))
			g, _, ledger := newTestGateway(tt.provider(ws))
			g.Model = tt.model
			g.Budget = llm.Budget{Prices: prices}
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, tt.in, rec.InputTokens)
			assert.Equal(t, tt.read, rec.CacheReadTokens)
			assert.Equal(t, tt.write, rec.CacheWriteTokens)
			assert.InDelta(t, tt.want, rec.CostUSD, 1e-12)
			entries := ledger.Entries()
			require.Len(t, entries, 1)
			assert.Equal(t, tt.read, entries[0].Usage.CacheReadTokens)
			// Billing cached input at the full price overstated this call.
			full := g.Budget.Cost(tt.model, tt.in, 100)
			assert.Greater(t, full, rec.CostUSD)
		})
	}
}

func TestRetriesMarkTheConversationForTheCache(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t,
		anthropicToolReply("classification", `{"type":"bug_fix"}`),
		anthropicToolReply("classification", validClassification))
	g, _, _ := newTestGateway(anthropicProvider(ws))
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	first := ws.body(0)["messages"].([]any)
	assert.NotContains(t, first[0].(map[string]any)["content"].([]any)[0], "cache_control", "a single turn is not worth a cache write")
	retry := ws.body(1)["messages"].([]any)
	last := retry[len(retry)-1].(map[string]any)["content"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"type": "ephemeral"}, last["cache_control"])
}

// TestTruncationRetryStaysWithinBudget: the one larger request after a
// truncated answer is checked against the budget like any other, with
// the truncated answer's usage already booked; when it does not fit it is
// not sent and the call ends with the budget's refusal.
func TestTruncationRetryStaysWithinBudget(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, recorded(t, 200, "anthropic_truncated.json", nil), anthropicToolReply("classification", validClassification))
	g, _, ledger := newTestGateway(anthropicProvider(ws))
	g.MaxTokens, g.OutputLimit = 8192, 64000
	g.Budget.MaxTokens = 20000 // the first request fits; 16,384 more after the cut answer do not
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	var be *llm.BudgetExceededError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, 1, ws.count(), "the larger request is not sent")
	spent, _ := ledger.Spent()
	assert.Positive(t, spent, "the truncated answer's usage is booked")
}
