package providers

import (
	"testing"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     llm.Config
		want    string
		wantErr string
	}{
		{"anthropic", llm.Config{Provider: "anthropic", APIKey: "k"}, "*providers.Anthropic", ""},
		{"default is anthropic", llm.Config{APIKey: "k"}, "*providers.Anthropic", ""},
		{"anthropic without key", llm.Config{Provider: "anthropic"}, "", "API key is required"},
		{"openai", llm.Config{Provider: "OpenAI", APIKey: "k"}, "*providers.OpenAI", ""},
		{"openai-compatible without key", llm.Config{Provider: "openai", BaseURL: "http://127.0.0.1:11434/v1"}, "*providers.OpenAI", ""},
		{"ollama alias", llm.Config{Provider: "ollama", BaseURL: "http://127.0.0.1:11434/v1"}, "*providers.OpenAI", ""},
		{"ollama default base", llm.Config{Provider: "ollama"}, "*providers.OpenAI", ""},
		{"vllm default base", llm.Config{Provider: "vllm"}, "*providers.OpenAI", ""},
		{"scripted is for tests", llm.Config{Provider: "scripted"}, "", "only available to tests"},
		{"old alias", llm.Config{Provider: "llamacpp", BaseURL: "http://x/v1"}, "", `"llamacpp": unknown`},
		{"unknown", llm.Config{Provider: "gemini", APIKey: "k"}, "", `"gemini": unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := FromConfig(tt.cfg)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, typeName(p))
		})
	}
	p, err := FromConfig(llm.Config{Provider: "vllm"})
	require.NoError(t, err)
	assert.Equal(t, llm.DefaultVLLMBaseURL, p.(*OpenAI).BaseURL)
	p, err = FromConfig(llm.Config{Provider: "ollama"})
	require.NoError(t, err)
	assert.Equal(t, llm.DefaultOllamaBaseURL, p.(*OpenAI).BaseURL)
}

func typeName(v any) string {
	switch v.(type) {
	case *Anthropic:
		return "*providers.Anthropic"
	case *OpenAI:
		return "*providers.OpenAI"
	}
	return "?"
}
