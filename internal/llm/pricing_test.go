package llm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
)

func TestLookupPrice(t *testing.T) {
	t.Parallel()
	prices := BuiltinPrices()
	tests := []struct {
		model   string
		in, out float64
		priced  bool
	}{
		{"claude-sonnet-4-5", 3, 15, true},
		{"claude-sonnet-4-5-20250929", 3, 15, true},
		{"claude-sonnet-4-6", 3, 15, true},
		{"claude-opus-4-1-20250805", 15, 75, true},
		{"claude-opus-4-5-20251101", 5, 25, true},
		// Was priced as claude-opus-4 (15/75) by family prefix.
		{"claude-opus-4-6", 5, 25, true},
		{"claude-opus-4-7", 5, 25, true},
		{"gpt-4o-2024-08-06", 2.50, 10, true},
		{"gpt-4o-mini-2024-07-18", 0.15, 0.60, true},
		{"gpt-5-mini", 0.25, 2, true},
		{"gpt-5.4", 2.5, 15, true},
		{"openai/gpt-5.4", 2.5, 15, true},
		{"llama3.1:8b", 0, 0, false},
		{"gpt-4oo", 0, 0, false},
		{"claude-opus-4-9", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := LookupPrice(prices, tt.model)
			assert.Equal(t, tt.priced, ok)
			assert.Equal(t, tt.in, got.InputPerMTok)
			assert.Equal(t, tt.out, got.OutputPerMTok)
		})
	}
}

func TestBuiltinPricesAreFreshAndPositive(t *testing.T) {
	t.Parallel()
	a := BuiltinPrices()
	a["claude-sonnet-4-5"] = Price{}
	b := BuiltinPrices()
	assert.Equal(t, 3.0, b["claude-sonnet-4-5"].InputPerMTok, "callers may change their copy")
	assert.Equal(t, 0.3, b["claude-sonnet-4-5"].CacheReadPerMTok)
	assert.Equal(t, 3.75, b["claude-sonnet-4-5"].CacheWritePerMTok)
	for name, p := range b {
		assert.Positive(t, p.InputPerMTok, name)
		assert.GreaterOrEqual(t, p.OutputPerMTok, p.InputPerMTok, name)
	}
}

func TestGatewayPricesEveryCall(t *testing.T) {
	t.Parallel()
	// The wire reply reports model claude-test; it has no price, so the
	// call is priced by the requested model's family.
	ws := newWireServer(t, anthropicToolReply("classification", validClassification))
	g, _, ledger := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	g.Model = "claude-sonnet-4-5-20250929"
	g.Budget = Budget{MaxCostUSD: 10, Prices: BuiltinPrices()}
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	want := (120*3.0 + 40*15.0) / 1e6
	assert.InDelta(t, want, rec.CostUSD, 1e-12)
	assert.False(t, rec.Unpriced)
	_, usd := ledger.Spent()
	assert.InDelta(t, want, usd, 1e-12)
}

func TestUnpricedModelIsHeldToTheTokenBudgetOnly(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		budget  Budget
		refused string // "" = call goes through
	}{
		{"cost bound is not enforced without a price", Budget{MaxCostUSD: 1e-9, Prices: BuiltinPrices()}, ""},
		{"token bound still holds", Budget{MaxTokens: 100, MaxCostUSD: 1e-9, Prices: BuiltinPrices()}, UnitTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWireServer(t, anthropicToolReply("classification", validClassification))
			g, _, ledger := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
			g.Model = "llama3.1:8b"
			g.Budget = tt.budget
			var out classify.Classification
			rec, err := g.Structured(context.Background(), intakeCall(), &out)
			assert.True(t, rec.Unpriced)
			if tt.refused != "" {
				var be *BudgetExceededError
				require.ErrorAs(t, err, &be)
				assert.Equal(t, tt.refused, be.Unit)
				return
			}
			require.NoError(t, err)
			tok, usd := ledger.Spent()
			assert.Equal(t, 160, tok)
			assert.Zero(t, usd)
		})
	}
}

func TestPricedModelIsHeldToTheCostBudget(t *testing.T) {
	t.Parallel()
	ws := newWireServer(t, anthropicToolReply("classification", validClassification))
	g, _, _ := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	g.Model = "claude-opus-4-1"
	g.MaxTokens = 4096
	// 4096 output tokens at $75/Mtok alone are $0.31.
	g.Budget = Budget{MaxCostUSD: 0.10, Prices: BuiltinPrices()}
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	var be *BudgetExceededError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, UnitUSD, be.Unit)
	assert.Empty(t, ws.bodies, "refused before any request")
}
