package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
)

// TestNewPipelineBudgetPricePolicy pins the budget's price policy: a
// configured price wins and keeps the table's cache discounts in
// proportion; otherwise the table prices the model; an unknown model is
// unpriced (only the token budget holds) and a hosted one is an error.
func TestNewPipelineBudgetPricePolicy(t *testing.T) {
	t.Parallel()
	table, err := BuiltinModelTable()
	require.NoError(t, err)
	in, out := 1.5, 7.5
	configured := config.Default()
	configured.LLM.InputPricePerMTok, configured.LLM.OutputPricePerMTok = &in, &out

	tests := []struct {
		name                     string
		cfg                      config.Config
		provider, model          string
		priced, configuredPrice  bool
		wantInput                float64
		wantModelErr, wantWarned bool
	}{
		{"table price", config.Default(), "", "claude-sonnet-4-6", true, false, table.Models["claude-sonnet-4-6"].Price().InputPerMTok, false, false},
		{"configured price wins", configured, "anthropic", "claude-sonnet-4-6", true, true, in, false, false},
		{"unknown hosted model", config.Default(), "openai", "gpt-none", false, false, 0, true, true},
		{"local model", config.Default(), "ollama", "llama-local", false, false, 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := NewPipelineBudget(tt.cfg, tt.provider, tt.model, table)
			assert.Equal(t, tt.priced, b.Priced)
			assert.Equal(t, tt.configuredPrice, b.Configured)
			assert.InDelta(t, tt.wantInput, b.Price.InputPerMTok, 1e-9)
			assert.Equal(t, tt.wantModelErr, b.ModelError() != nil)
			assert.Equal(t, tt.wantWarned, b.Warning() != "")
			assert.NotEmpty(t, b.Provider, "the provider defaults to Anthropic")
			if tt.configuredPrice {
				tp := table.Models[tt.model].Price()
				assert.InDelta(t, tp.CacheReadPerMTok/tp.InputPerMTok*in, b.Price.CacheReadPerMTok, 1e-9, "cache discount in proportion")
				assert.Equal(t, in, b.LLM().Prices[tt.model].InputPerMTok, "the gateway enforces the configured price")
			}
		})
	}
}
