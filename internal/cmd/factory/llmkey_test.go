package factory_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/llm"
)

// TestMissingLLMKeyNamesTheSecret: the error a new user meets in Actions
// names the secret the shipped workflows read for the provider in use.
func TestMissingLLMKeyNamesTheSecret(t *testing.T) {
	t.Parallel()
	tests := []struct {
		provider, baseURL, key string
		missing                bool
		secret                 string
	}{
		{provider: "", missing: true, secret: "ANTHROPIC_API_KEY"},
		{provider: "Anthropic", missing: true, secret: "ANTHROPIC_API_KEY"},
		{provider: "openai", missing: true, secret: "OPENAI_API_KEY"},
		{provider: "openai", key: "sk-x", secret: "OPENAI_API_KEY"},
		{provider: "openai", baseURL: "http://proxy:8080/v1", secret: "OPENAI_API_KEY"}, // a compatible server may need none
		{provider: "ollama"},
	}
	for _, tt := range tests {
		t.Run(tt.provider+tt.baseURL+tt.key, func(t *testing.T) {
			lc := llm.Config{Provider: tt.provider, BaseURL: tt.baseURL, APIKey: tt.key}
			assert.Equal(t, tt.missing, factory.LLMKeyMissing(lc))
			assert.Equal(t, tt.secret, llm.KeySecret(tt.provider))
			if tt.missing {
				msg := factory.MissingLLMKey(tt.provider).Error()
				assert.Contains(t, msg, "COGWORKS_LLM_API_KEY")
				assert.Contains(t, msg, "the repository secret "+tt.secret)
				assert.Contains(t, msg, "llm-api-key: ${{ secrets."+tt.secret+" }}")
			}
		})
	}
}
