package factory_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

func envFactory(env map[string]string) *factory.Factory {
	return &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(k string) string { return env[k] }}
}

func TestEnvProviderSwitchTakesItsDefaults(t *testing.T) {
	t.Parallel()
	f := envFactory(map[string]string{"COGWORKS_LLM_PROVIDER": "ollama"})
	cfg := f.WithLLMEnv(config.Default())
	assert.Equal(t, "qwen3-coder:30b", cfg.LLM.Model, "not Anthropic's model")
	assert.Equal(t, 32768, cfg.LLM.ContextWindow, "not a 200k window")
	assert.Equal(t, "qwen3-coder:30b", f.LLMConfig(config.Default()).Model)

	explicit := config.Default()
	explicit.LLM.Model, explicit.LLM.ContextWindow = "llama3.3:70b", 65536
	cfg = f.WithLLMEnv(explicit)
	assert.Equal(t, "llama3.3:70b", cfg.LLM.Model, "a configured model is kept")
	assert.Equal(t, 65536, cfg.LLM.ContextWindow)
}

func TestUnknownHostedModelIsAClearError(t *testing.T) {
	t.Parallel()
	price := 1.0
	tests := []struct {
		name, provider, model string
		priced                bool
		wantErr               bool
	}{
		{"known anthropic model", "anthropic", "claude-sonnet-4-6", false, false},
		{"dated snapshot of a known model", "anthropic", "claude-sonnet-4-5-20250929", false, false},
		{"unknown openai model", "openai", "gpt-9-turbo", false, true},
		{"unknown anthropic model", "anthropic", "claude-opus-4-9", false, true},
		{"unknown model with configured prices", "openai", "gpt-9-turbo", true, false},
		{"local server runs any model", "ollama", "llama3.3:70b", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.LLM.Provider, cfg.LLM.Model = tt.provider, tt.model
			if tt.priced {
				cfg.LLM.InputPricePerMTok, cfg.LLM.OutputPricePerMTok = &price, &price
			}
			err := envFactory(nil).Budget(cfg).ModelError()
			if !tt.wantErr {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), `"`+tt.provider+`"`)
			assert.Contains(t, err.Error(), `"`+tt.model+`"`)
			assert.Contains(t, err.Error(), "input_price_per_mtok")
		})
	}
}

func TestCostReportPrintsTheTableDate(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	b := envFactory(nil).Budget(config.Default())
	require.NoError(t, factory.WriteCostReport(&out, pipeline.Snapshot{}, b))
	assert.Contains(t, out.String(), "price: claude-sonnet-5 at $2 / $10 per million input / output tokens, cache reads $0.2 / writes $2.5")
	assert.Contains(t, out.String(), "as of "+llm.ModelTableAsOf)
}

// TestInitConfigFollowsTheProvider edits only the provider of the config
// `cogworks init` writes: the model and window must follow it, not stay
// Anthropic's.
func TestInitConfigFollowsTheProvider(t *testing.T) {
	t.Parallel()
	raw, err := initfiles.RenderConfig()
	require.NoError(t, err)
	text := strings.Replace(string(raw), `provider = "anthropic"`, `provider = "ollama"`, 1)
	require.NotEqual(t, string(raw), text)
	cfg, err := config.Parse("config.toml", []byte(text))
	require.NoError(t, err)
	assert.Equal(t, "qwen3-coder:30b", cfg.LLM.Model)
	assert.Equal(t, 32768, cfg.LLM.ContextWindow)
}
