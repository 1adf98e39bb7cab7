package providers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/retry"
	"github.com/cogworks/cogworks/internal/testkit"
)

// newTestGateway wires a gateway to p with recorded sleeps and identity
// jitter.
func newTestGateway(p llm.Provider) (*llm.Gateway, *testkit.SleepRecorder, *llm.MemoryLedger) {
	sr := &testkit.SleepRecorder{}
	ledger := llm.NewMemoryLedger(0, 0)
	g := &llm.Gateway{
		Provider: p,
		Prompts:  staticPrompts(),
		Ledger:   ledger,
		Model:    "model-x",
		Sleep:    sr.Sleep,
		Jitter:   func(d time.Duration) time.Duration { return d },
	}
	return g, sr, ledger
}

func intakeCall() llm.Call {
	return llm.Call{Stage: "intake", Template: "classify", Vars: map[string]any{"Title": "Brake light flickers"}}
}

func TestAssertSCHEMA002_ValidAnswerIsDecoded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rep      reply
		provider func(ws *wireServer) llm.Provider
		inTok    int
	}{
		{
			name: "anthropic tool_use",
			rep:  anthropicToolReply("classification", validClassification),
			provider: func(ws *wireServer) llm.Provider {
				return &Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()}
			},
			inTok: 120,
		},
		{
			name: "openai json_schema",
			rep:  openaiReply(validClassification),
			provider: func(ws *wireServer) llm.Provider {
				return &OpenAI{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()}
			},
			inTok: 100,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, tt.rep)
			g, _, ledger := newTestGateway(tt.provider(ws))
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, classify.Classification{
				Type:            classify.TypeBugFix,
				AffectedModules: []string{"brake"},
				EstimatedScope:  classify.Scope{Files: 2, Complexity: "low"},
				Rationale:       "small fix",
			}, out)
			assert.Equal(t, 1, rec.Attempts)
			assert.Equal(t, 0, rec.SchemaRetries)
			assert.Equal(t, tt.inTok, rec.InputTokens)
			assert.Equal(t, "intake", rec.Stage)
			assert.Equal(t, "classify", rec.Template)
			assert.Len(t, rec.InputHash, 64)
			require.Len(t, ledger.Entries(), 1)
			assert.Equal(t, "intake", ledger.Entries()[0].Stage)
		})
	}
}

func TestAssertSCHEMA001_InvalidAnswerRetriedWithValidatorMessages(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t,
		anthropicToolReply("classification", invalidComplexity),
		anthropicToolReply("classification", validClassification),
	)
	g, _, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, "low", out.EstimatedScope.Complexity)
	assert.Equal(t, 2, rec.Attempts)
	assert.Equal(t, 1, rec.SchemaRetries)
	assert.Equal(t, 240, rec.InputTokens, "tokens of both attempts are accounted")

	require.Equal(t, 2, ws.count())
	msgs := ws.body(1)["messages"].([]any)
	require.Len(t, msgs, 3, "original prompt, rejected answer, validator feedback")
	assert.Equal(t, "assistant", msgs[1].(map[string]any)["role"])
	assert.Contains(t, messageText(t, msgs[1]), `"huge"`)
	feedback := msgs[2].(map[string]any)
	assert.Equal(t, "user", feedback["role"])
	assert.Contains(t, messageText(t, feedback), "/estimated_scope/complexity")
	assert.Contains(t, messageText(t, feedback), "value must be one of 'low', 'medium', 'high'")
}

func TestAssertSCHEMA001_MalformedAnswerRetriedAsSchemaViolation(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t,
		openaiReply("I'd say this is a bug fix."),
		openaiReply(validClassification),
	)
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 1, rec.SchemaRetries)
	assert.Equal(t, classify.TypeBugFix, out.Type)
	assert.Contains(t, ws.rawBody(t, 1), "holds no JSON object")
}

func TestAssertSCHEMA001_SchemaRetriesExhausted(t *testing.T) {
	t.Parallel()
	var replies []reply
	for range 5 {
		replies = append(replies, openaiReply(`{"type":"feature"}`))
	}
	ws := newWireServer(t, replies...)
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	g.SchemaRetries = 2
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	var se *llm.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "classification", se.Schema)
	require.NotEmpty(t, se.Violations)
	assert.Contains(t, se.Violations[0].Message, "missing properties")
	assert.Equal(t, 3, ws.count(), "first answer plus two schema retries")
	assert.Equal(t, 2, rec.SchemaRetries)
	assert.Equal(t, classify.Classification{}, out, "invalid answers are never decoded")
}

func TestGatewayHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t,
		reply{status: 429, headers: map[string]string{"Retry-After": "3"}, body: `{"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}}`},
		anthropicToolReply("classification", validClassification),
	)
	g, sr, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{3 * time.Second}, sr.Recorded())
	assert.Equal(t, 2, rec.Attempts)
	assert.Equal(t, 0, rec.SchemaRetries)
}

func TestGatewayTransientRetriesExhausted(t *testing.T) {
	t.Parallel()
	var replies []reply
	for range 6 {
		replies = append(replies, reply{status: 500, body: `{"error":{"message":"internal"}}`})
	}
	ws := newWireServer(t, replies...)
	g, sr, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	var pe *llm.ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 500, pe.Status)
	assert.Equal(t, 5, ws.count(), "one request plus four transient retries")
	assert.Equal(t, 5, rec.Attempts)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, sr.Recorded())
}

func TestGatewayDoesNotRetryPermanentErrors(t *testing.T) {
	t.Parallel()
	for _, status := range []int{400, 401, 403} {
		ws := newWireServer(t, reply{status: status, body: `{"error":{"message":"nope"}}`})
		g, sr, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
		var out classify.Classification
		_, err := g.Structured(context.Background(), intakeCall(), &out)
		var pe *llm.ProviderError
		require.ErrorAs(t, err, &pe, "status %d", status)
		assert.False(t, pe.Retryable)
		assert.Equal(t, 1, ws.count(), "status %d is not retried", status)
		assert.Empty(t, sr.Recorded())
	}
}

func TestGatewayGivesUpOnLongRetryAfter(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, reply{status: 429, headers: map[string]string{"Retry-After": "3600"}})
	g, sr, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "retry after 1h0m0s")
	var tooLong *retry.TooLongError
	require.ErrorAs(t, err, &tooLong, "callers can tell a refused wait from other failures")
	assert.Equal(t, llm.DefaultMaxRetryAfter, tooLong.Limit)
	var pe *llm.ProviderError
	require.ErrorAs(t, err, &pe, "the provider's error stays reachable")
	assert.Empty(t, sr.Recorded())
	assert.Equal(t, 1, ws.count())
}

func TestAssertCODE005_BudgetRefusesBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		budget llm.Budget
		ledger *llm.MemoryLedger
		unit   string
		limit  float64
	}{
		{
			name:   "token budget",
			budget: llm.Budget{MaxTokens: 10_000},
			ledger: llm.NewMemoryLedger(9_000, 0),
			unit:   llm.UnitTokens,
			limit:  10_000,
		},
		{
			name:   "cost budget",
			budget: llm.Budget{MaxCostUSD: 1.0, Prices: map[string]llm.Price{"model-x": {InputPerMTok: 3, OutputPerMTok: 15}}},
			ledger: llm.NewMemoryLedger(0, 0.95),
			unit:   llm.UnitUSD,
			limit:  1.0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, anthropicToolReply("classification", validClassification))
			g, _, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
			g.Budget = tt.budget
			g.Ledger = tt.ledger
			g.MaxTokens = 4096
			var out classify.Classification
			call := intakeCall()
			call.Stage, call.SWI = "code-generation", "swi-2"
			rec, err := g.Structured(context.Background(), call, &out)
			var be *llm.BudgetExceededError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, tt.unit, be.Unit)
			assert.Equal(t, tt.limit, be.Limit)
			assert.Equal(t, "code-generation", be.Stage)
			assert.Equal(t, "swi-2", be.SWI)
			assert.Greater(t, be.Spent+be.Estimated, be.Limit)
			assert.Equal(t, 0, ws.count(), "the server must see no request")
			assert.Equal(t, 0, rec.Attempts)
			assert.Empty(t, tt.ledger.Entries())
		})
	}
}

func TestBudgetAllowsCallWithinLimitAndWarns(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, anthropicToolReply("classification", validClassification))
	g, _, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	g.MaxTokens = 100
	// Each call uses 160 tokens (120 in + 40 out); the estimate (prompt,
	// schema and MaxTokens) stays below the remaining budget.
	g.Budget = llm.Budget{MaxTokens: 4000}
	g.Ledger = llm.NewMemoryLedger(2900, 0) // 72.5% ⇒ 76.5%
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 75, rec.BudgetWarning)

	ws2 := newWireServer(t, anthropicToolReply("classification", validClassification))
	g.Provider = &Anthropic{BaseURL: ws2.URL, APIKey: "k", HTTPClient: ws2.Client()}
	rec, err = g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 0, rec.BudgetWarning, "76.5% ⇒ 80.5% crosses nothing")

	ws3 := newWireServer(t, anthropicToolReply("classification", validClassification))
	g.Provider = &Anthropic{BaseURL: ws3.URL, APIKey: "k", HTTPClient: ws3.Client()}
	g.Ledger = llm.NewMemoryLedger(3500, 0) // 87.5% ⇒ 91.5%
	rec, err = g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 90, rec.BudgetWarning)
}

func TestGatewayRedactsPromptBeforeSending(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, openaiReply(validClassification))
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	g.Redact = func(s string) string { return strings.ReplaceAll(s, "ghp_SECRET123", "[REDACTED]") }
	var out classify.Classification
	call := intakeCall()
	call.Vars = map[string]any{"Title": "token ghp_SECRET123 leaked"}
	rec, err := g.Structured(context.Background(), call, &out)
	require.NoError(t, err)
	body := ws.rawBody(t, 0)
	assert.NotContains(t, body, "ghp_SECRET123")
	assert.Contains(t, body, "[REDACTED]")
	sum := sha256.Sum256([]byte("You are a careful assistant for classify.\x00Classify: token [REDACTED] leaked"))
	assert.Equal(t, hex.EncodeToString(sum[:]), rec.InputHash)
}

func TestGatewayRenderErrorSendsNothing(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t)
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	g.Prompts = llm.RenderFunc(func(string, map[string]any) (string, string, error) {
		return "", "", assert.AnError
	})
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	require.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, 0, ws.count())
}

func TestGatewayRejectsBadOutputArgument(t *testing.T) {
	t.Parallel()
	g, _, _ := newTestGateway(llm.NewScripted())
	tests := []struct {
		name string
		out  any
	}{
		{"nil", nil},
		{"non-pointer", classify.Classification{}},
		{"pointer to non-struct", new(string)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := g.Structured(context.Background(), intakeCall(), tt.out)
			require.Error(t, err)
		})
	}
}

func TestGatewayStopsWhenContextCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, reply{status: 503}, reply{status: 503})
	g, _, _ := newTestGateway(&OpenAI{BaseURL: ws.URL, HTTPClient: ws.Client()})
	g.Sleep = nil // real sleep, interrupted by the context
	g.BaseBackoff = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var out classify.Classification
	_, err := g.Structured(ctx, intakeCall(), &out)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1, ws.count())
}
