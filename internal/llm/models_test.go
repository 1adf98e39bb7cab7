package llm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedModelsFile finds shared/data/llm-models.json above the
// repository (the team's shared data directory); "" when this checkout
// has none.
func sharedModelsFile(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("COGWORKS_SHARED_MODELS"); p != "" {
		return p
	}
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		p := filepath.Join(dir, "shared", "data", "llm-models.json")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestLiteLLMSourceMatchesShared keeps the generator's committed LiteLLM
// source equal to the shared LiteLLM-format file, when this checkout has
// one above it; modelgen's TestShippedTableIsGenerated then keeps the
// shipped table equal to what the sources produce.
func TestLiteLLMSourceMatchesShared(t *testing.T) {
	path := sharedModelsFile(t)
	if path == "" {
		t.Skip("no shared/data/llm-models.json above this checkout (set COGWORKS_SHARED_MODELS)")
	}
	shared, err := os.ReadFile(path)
	require.NoError(t, err)
	committed, err := os.ReadFile(filepath.Join("modelgen", "testdata", "litellm.json"))
	require.NoError(t, err)
	var a, b map[string]any
	require.NoError(t, json.Unmarshal(shared, &a))
	require.NoError(t, json.Unmarshal(committed, &b))
	assert.Equal(t, a, b, "copy %s to modelgen/testdata/litellm.json and run go generate ./internal/llm", path)
}

func TestModelTableLookup(t *testing.T) {
	t.Parallel()
	table, err := BuiltinModelTable()
	require.NoError(t, err)
	tests := []struct {
		model     string
		found     bool
		maxOutput int
	}{
		{"claude-sonnet-4-6", true, 64000},
		{"claude-sonnet-4-5-20250929", true, 64000},
		{"gpt-4o-2024-08-06", true, 16384},
		{"openai/gpt-5.4", true, 128000},
		{"claude-opus-4", false, 0},
		{"claude-sonnet-5", true, 64000},
		{"gpt-6-sol", true, 128000},
		{"qwen3-coder:30b", false, 0},
	}
	for _, tt := range tests {
		m, ok := table.Lookup(tt.model)
		assert.Equal(t, tt.found, ok, tt.model)
		assert.Equal(t, tt.maxOutput, m.MaxOutputTokens, tt.model)
	}
}

func TestEveryShippedChatModelIsPriced(t *testing.T) {
	t.Parallel()
	table, err := BuiltinModelTable()
	require.NoError(t, err)
	prices := table.Prices()
	for name, m := range table.Models {
		if m.Mode != "chat" {
			continue
		}
		_, ok := LookupPrice(prices, name)
		assert.True(t, ok, "%s has no price", name)
	}
}

func TestIsReasoningModel(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]bool{
		"gpt-5.4": true, "gpt-5-mini": true, "o3": true, "o4-mini": true, "o1-2024-12-17": true, "o3-mini-2025-01-31": true,
		"openai/gpt-5.5": true, "gpt-5.6-terra": true, "gpt-6-sol": true, "gpt-6-luna": true,
		"gpt-5-chat-latest": false, "gpt-4.1": false, "gpt-4o-mini": false, "claude-sonnet-4-6": false, "omni-x": false,
	} {
		assert.Equal(t, want, IsReasoningModel(model), model)
	}
}
