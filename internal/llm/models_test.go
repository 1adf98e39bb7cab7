package llm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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

// TestShippedModelTableMatchesShared compares every model of the embedded
// table with the shared LiteLLM-format file, and the table's date with the
// date the shared README gives for its sync. UPDATE=1 regenerates the
// embedded copy from the shared file.
func TestShippedModelTableMatchesShared(t *testing.T) {
	path := sharedModelsFile(t)
	if path == "" {
		t.Skip("no shared/data/llm-models.json above this checkout (set COGWORKS_SHARED_MODELS)")
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	if os.Getenv("UPDATE") == "1" {
		var doc map[string]any
		require.NoError(t, json.Unmarshal(data, &doc))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(doc))
		require.NoError(t, os.WriteFile("models.json", buf.Bytes(), 0o644))
		builtinModelsJSON = buf.Bytes()
	}
	shared, err := ParseModelTable(path, "", data)
	require.NoError(t, err)
	shipped, err := BuiltinModelTable()
	require.NoError(t, err)
	require.Len(t, shipped.Models, len(shared.Models))
	for name, want := range shared.Models {
		got, ok := shipped.Models[name]
		if assert.True(t, ok, "model %s missing from the shipped table", name) {
			assert.Equal(t, want, got, name)
		}
	}
	readme, err := os.ReadFile(filepath.Join(filepath.Dir(path), "README.md"))
	if err == nil {
		m := regexp.MustCompile(`synced (\d{4}-\d{2}-\d{2})`).FindSubmatch(readme)
		require.NotNil(t, m, "the shared README dates its sync")
		assert.Equal(t, string(m[1]), ModelTableAsOf, "ModelTableAsOf follows the shared table's sync date")
	}
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
		"openai/gpt-5.5":    true,
		"gpt-5-chat-latest": false, "gpt-4.1": false, "gpt-4o-mini": false, "claude-sonnet-4-6": false, "omni-x": false,
	} {
		assert.Equal(t, want, IsReasoningModel(model), model)
	}
}
