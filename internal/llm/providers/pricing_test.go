package providers

import (
	"context"
	"testing"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGatewayPricesEveryCall(t *testing.T) {
	t.Parallel()
	// The wire reply reports model claude-test; it has no price, so the
	// call is priced by the requested model's family.
	ws := newWireServer(t, anthropicToolReply("classification", validClassification))
	g, _, ledger := newTestGateway(&Anthropic{BaseURL: ws.URL, APIKey: "k", HTTPClient: ws.Client()})
	g.Model = "claude-sonnet-4-5-20250929"
	g.Budget = llm.Budget{MaxCostUSD: 10, Prices: llm.BuiltinPrices()}
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
		budget  llm.Budget
		refused string // "" = call goes through
	}{
		{"cost bound is not enforced without a price", llm.Budget{MaxCostUSD: 1e-9, Prices: llm.BuiltinPrices()}, ""},
		{"token bound still holds", llm.Budget{MaxTokens: 100, MaxCostUSD: 1e-9, Prices: llm.BuiltinPrices()}, llm.UnitTokens},
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
				var be *llm.BudgetExceededError
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
	g.Budget = llm.Budget{MaxCostUSD: 0.10, Prices: llm.BuiltinPrices()}
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	var be *llm.BudgetExceededError
	require.ErrorAs(t, err, &be)
	assert.Equal(t, llm.UnitUSD, be.Unit)
	assert.Empty(t, ws.bodies, "refused before any request")
}
