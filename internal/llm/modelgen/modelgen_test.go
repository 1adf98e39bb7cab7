package modelgen

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readSources(t *testing.T) Sources {
	t.Helper()
	read := func(p string) []byte {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		return data
	}
	return Sources{
		GenAIPrices: read("testdata/genai-prices.json"),
		LiteLLM:     read("testdata/litellm.json"),
		Lifecycle:   read("lifecycle.json"),
	}
}

// TestShippedTableIsGenerated keeps internal/llm's models.json and
// models_source.go equal to what the generator makes of the committed
// sources, so CI needs no npm and a hand edit of the table fails here.
// Fix with `go run ./modelgen/cmd/modelgen` in internal/llm.
func TestShippedTableIsGenerated(t *testing.T) {
	t.Parallel()
	out, err := Build(readSources(t))
	require.NoError(t, err)
	shipped, err := os.ReadFile("../models.json")
	require.NoError(t, err)
	assert.Equal(t, string(out.ModelsJSON), string(shipped), "models.json is not the generator's output: run go generate ./internal/llm")
	src, err := os.ReadFile("../models_source.go")
	require.NoError(t, err)
	assert.Equal(t, string(out.GoSource), string(src))
}

func TestBuildMergesSources(t *testing.T) {
	t.Parallel()
	out, err := Build(readSources(t))
	require.NoError(t, err)
	var table map[string]map[string]any
	require.NoError(t, json.Unmarshal(out.ModelsJSON, &table))
	assert.Contains(t, string(out.GoSource), `ModelTableAsOf = "2026-09-23"`, "dated by the genai-prices release")
	// 0.1.8 was still the newest release when the registry was asked on
	// 2026-11-27 (npm view @pydantic/genai-prices versions time).
	assert.Contains(t, string(out.GoSource), `ModelTableCheckedOn = "2026-11-27"`)
	tests := []struct {
		model, field string
		want         any
	}{
		// Only genai-prices lists it: its price, its predecessor's limits.
		{"claude-sonnet-5", "input_cost_per_token", 2e-06},
		{"claude-sonnet-5", "max_output_tokens", 64000.0},
		{"gpt-6-sol", "output_cost_per_token", 1e-05},
		// genai-prices' current price overrides LiteLLM's stale one.
		{"gpt-5.6", "input_cost_per_token", 4e-06},
		// The overlay's retirement facts.
		{"gpt-4.1", "deprecation_date", "2027-01-14"},
		{"gpt-4.1", "replacement", "gpt-5.6-luna"},
		{"claude-sonnet-4-20250514", "deprecation_date", "2026-06-15"},
		{"claude-fable-5-1", "refuses_forced_tool_choice", true},
		{"gpt-5-pro", "mode", "responses"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, table[tt.model][tt.field], "%s %s", tt.model, tt.field)
	}
}

func TestBuildRefusesAStaleOverlay(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"unknown retired model":   `{"retire":{"gpt-nope":{"date":"2026-01-01","replacement":"gpt-5.6"}}}`,
		"unknown replacement":     `{"retire":{"gpt-4.1":{"date":"2026-01-01","replacement":"gpt-nope"}}}`,
		"added model LiteLLM has": `{"add":{"gpt-5.6":{"inherit":"gpt-5.5"}}}`,
		"added model genai lacks": `{"add":{"gpt-nope":{"inherit":"gpt-5.5"}}}`,
		"unknown refusing model":  `{"refuses_forced_tool_choice":["claude-nope"]}`,
	}
	for name, overlay := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := readSources(t)
			src.Lifecycle = []byte(overlay)
			_, err := Build(src)
			assert.Error(t, err)
		})
	}
}

func TestMatchLogic(t *testing.T) {
	t.Parallel()
	var m matchLogic
	require.NoError(t, json.Unmarshal([]byte(`{"or":[{"equals":"gpt-6-sol"},{"regex":"^gpt-6-sol-\\d{4}-\\d{2}-\\d{2}$"},{"and":[{"starts_with":"x-"},{"ends_with":"-y"}]},{"contains":"zz"}]}`), &m))
	for id, want := range map[string]bool{
		"gpt-6-sol": true, "gpt-6-sol-2026-09-01": true, "gpt-6-sol-mini": false,
		"x-1-y": true, "x-1": false, "azzb": true,
	} {
		got, err := m.matches(id)
		require.NoError(t, err)
		assert.Equal(t, want, got, id)
	}
}

// TestAddedModelTakesItsOwnWindow: a model only genai-prices lists
// inherits its predecessor's limits but keeps its own context window.
func TestAddedModelTakesItsOwnWindow(t *testing.T) {
	t.Parallel()
	out, err := Build(Sources{
		GenAIPrices: []byte(`{"package":"p","version":"1","published":"2026-09-23","checked":"2026-09-23","providers":[{"id":"openai","models":[
			{"id":"old","match":{"equals":"old"},"context_window":1000,"prices":{"input_mtok":1,"output_mtok":2}},
			{"id":"new","match":{"equals":"new"},"context_window":5000,"prices":{"input_mtok":3,"output_mtok":4}}]}]}`),
		LiteLLM:   []byte(`{"old":{"litellm_provider":"openai","mode":"chat","max_input_tokens":1000,"max_output_tokens":100}}`),
		Lifecycle: []byte(`{"add":{"new":{"inherit":"old"}}}`),
	})
	require.NoError(t, err)
	var table map[string]map[string]any
	require.NoError(t, json.Unmarshal(out.ModelsJSON, &table))
	assert.Equal(t, 5000.0, table["new"]["max_input_tokens"])
	assert.Equal(t, 100.0, table["new"]["max_output_tokens"])
	assert.Equal(t, 3e-06, table["new"]["input_cost_per_token"])
}

// TestBuildDatesHonestly: the dump must say when the registry was asked,
// and that day cannot precede the release it found.
func TestBuildDatesHonestly(t *testing.T) {
	t.Parallel()
	for name, head := range map[string]string{
		"no checked date":          `"published":"2026-09-23"`,
		"checked before published": `"published":"2026-09-23","checked":"2026-09-01"`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := readSources(t)
			src.GenAIPrices = []byte(`{"package":"p","version":"1",` + head + `,"providers":[]}`)
			_, err := Build(src)
			assert.Error(t, err)
		})
	}
}
