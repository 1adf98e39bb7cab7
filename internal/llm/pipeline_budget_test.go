package llm

import (
	"os"
	"path/filepath"
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

// TestBudgetForOverlaysTheModelsFile: [llm] models_file adds and
// overrides models over the built-in table; one that cannot be read is
// reported and skipped, and the built-in table still prices the model.
func TestBudgetForOverlaysTheModelsFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "models.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"sample_spec": {"mode": "chat"},
		"claude-sonnet-4-6": {"input_cost_per_token": 2e-06, "output_cost_per_token": 1e-05, "max_input_tokens": 200000, "max_output_tokens": 64000},
		"acme-coder": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "max_input_tokens": 100000, "max_output_tokens": 8000}}`), 0o600))
	builtin, err := BudgetFor(config.Default(), "", "claude-sonnet-4-6")
	require.NoError(t, err)
	require.True(t, builtin.Priced)

	tests := []struct {
		name, file, model string
		wantErr           string
		wantInput         float64
	}{
		{"the file's price wins", path, "claude-sonnet-4-6", "", 2.0},
		{"the file adds a model", path, "acme-coder", "", 1.0},
		{"an unreadable file is skipped", filepath.Join(t.TempDir(), "missing.json"), "claude-sonnet-4-6", "models_file ignored", builtin.Price.InputPerMTok},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.LLM.ModelsFile = tt.file
			b, err := BudgetFor(cfg, ProviderOpenAI, tt.model)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
				assert.Contains(t, b.PriceLine(), tt.file)
			}
			require.True(t, b.Known)
			assert.Equal(t, tt.wantInput, b.Price.InputPerMTok)
		})
	}
}
