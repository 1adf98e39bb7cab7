package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSwitchingProviderTakesItsDefaults(t *testing.T) {
	tests := []struct {
		name      string
		toml      string
		model     string
		window    int
		maxOutput int
	}{
		{"default is a current Anthropic model", "", "claude-sonnet-5", 200000, 8192},
		{"openai", "[llm]\nprovider = \"openai\"\n", "gpt-5.6-terra", 200000, 32768},
		{"ollama gets a local model and window", "[llm]\nprovider = \"ollama\"\n", "qwen3-coder:30b", 32768, 8192},
		{"vllm", "[llm]\nprovider = \"vllm\"\n", "Qwen/Qwen3-Coder-30B-A3B-Instruct", 32768, 8192},
		{"explicit keys win", "[llm]\nprovider = \"ollama\"\nmodel = \"llama3.3:70b\"\ncontext_window = 65536\nmax_output_tokens = 4096\n", "llama3.3:70b", 65536, 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse("config.toml", []byte(tt.toml))
			require.NoError(t, err)
			assert.Equal(t, tt.model, cfg.LLM.Model)
			assert.Equal(t, tt.window, cfg.LLM.ContextWindow)
			assert.Equal(t, tt.maxOutput, cfg.LLM.MaxTokens)
		})
	}
}

func TestEveryProviderHasDefaults(t *testing.T) {
	for _, p := range Providers() {
		if p == "scripted" {
			continue
		}
		d, ok := ProviderDefaults(p)
		require.True(t, ok, p)
		assert.NotEmpty(t, d.Model, p)
		assert.Positive(t, d.ContextWindow, p)
		assert.Positive(t, d.MaxTokens, p)
	}
	_, ok := ProviderDefaults("nonesuch")
	assert.False(t, ok)
}
