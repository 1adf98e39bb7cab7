package llm

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
)

// builtinModelsJSON is the generated model table: modelgen merges
// @pydantic/genai-prices' prices, LiteLLM's limits and modes and the
// hand-kept lifecycle overlay (modelgen/lifecycle.json). Regenerate with
// `go generate ./internal/llm` (needs npm and node for the fetch);
// modelgen's TestShippedTableIsGenerated keeps it equal to what the
// committed sources produce. [llm] prices or models_file override it.
//
//go:generate sh modelgen/fetch.sh
//go:generate go run ./modelgen/cmd/modelgen
//go:embed models.json
var builtinModelsJSON []byte

// PricesAsOf is the date of the built-in prices (the model table's date).
const PricesAsOf = ModelTableAsOf

// ModelInfo is one model's entry in LiteLLM's format: limits in tokens,
// prices in USD per token.
type ModelInfo struct {
	MaxInputTokens              int     `json:"max_input_tokens"`
	MaxOutputTokens             int     `json:"max_output_tokens"`
	InputCostPerToken           float64 `json:"input_cost_per_token"`
	OutputCostPerToken          float64 `json:"output_cost_per_token"`
	CacheReadInputTokenCost     float64 `json:"cache_read_input_token_cost"`
	CacheCreationInputTokenCost float64 `json:"cache_creation_input_token_cost"`
	DeprecationDate             string  `json:"deprecation_date"`
	Provider                    string  `json:"litellm_provider"`
	Mode                        string  `json:"mode"`
	SupportsFunctionCalling     bool    `json:"supports_function_calling"`
	SupportsResponseSchema      bool    `json:"supports_response_schema"`
	SupportsReasoning           bool    `json:"supports_reasoning"`
	// Replacement is the model to move to once DeprecationDate (the
	// provider's shutdown date) is near or past.
	Replacement string `json:"replacement"`
	// RefusesForcedToolChoice marks Anthropic models that reject a forced
	// tool_choice: structured output goes through output_format instead.
	RefusesForcedToolChoice bool `json:"refuses_forced_tool_choice"`
}

// Price converts the per-token costs to a per-million-token Price.
func (m ModelInfo) Price() Price {
	return Price{
		InputPerMTok:      perMTok(m.InputCostPerToken),
		OutputPerMTok:     perMTok(m.OutputCostPerToken),
		CacheReadPerMTok:  perMTok(m.CacheReadInputTokenCost),
		CacheWritePerMTok: perMTok(m.CacheCreationInputTokenCost),
	}
}

// perMTok scales a per-token cost, rounding away the float noise of the
// per-token figures (3e-06 × 1e6 = 2.9999999999999996).
func perMTok(perToken float64) float64 {
	return math.Round(perToken*1e6*1e6) / 1e6
}

// ModelTable is a dated price and limit table keyed by model id.
type ModelTable struct {
	// AsOf says how current the table is; Source where it came from.
	AsOf, Source string
	Models       map[string]ModelInfo
}

// BuiltinModelTable parses the embedded table. A fresh table is returned
// on every call, so callers may add to it.
func BuiltinModelTable() (ModelTable, error) {
	return ParseModelTable("built-in table ("+ModelTableSource+")", ModelTableAsOf, builtinModelsJSON)
}

// LoadModelTable reads a LiteLLM-format file, such as a newer copy of
// model_prices_and_context_window.json; asOf labels it in reports.
func LoadModelTable(path, asOf string) (ModelTable, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return ModelTable{}, fmt.Errorf("load model table %s: %w", path, err)
	}
	return ParseModelTable(path, asOf, data)
}

// ParseModelTable decodes a LiteLLM-format document. LiteLLM's own file
// starts with a "sample_spec" entry documenting the fields; it is skipped.
func ParseModelTable(source, asOf string, data []byte) (ModelTable, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return ModelTable{}, fmt.Errorf("model table %s: %w", source, err)
	}
	t := ModelTable{AsOf: asOf, Source: source, Models: make(map[string]ModelInfo, len(raw))}
	for name, entry := range raw {
		if name == "sample_spec" {
			continue
		}
		var m ModelInfo
		if err := json.Unmarshal(entry, &m); err != nil {
			return ModelTable{}, fmt.Errorf("model table %s: entry %q: %w", source, name, err)
		}
		t.Models[name] = m
	}
	return t, nil
}

// Lookup finds model by exact id, else without a provider prefix
// ("openai/gpt-5.4"), else without its snapshot date. It never matches a
// longer family by prefix: claude-opus-4-6 is not claude-opus-4.
func (t ModelTable) Lookup(model string) (ModelInfo, bool) {
	for _, name := range lookupNames(model) {
		if m, ok := t.Models[name]; ok {
			return m, true
		}
	}
	return ModelInfo{}, false
}

func lookupNames(model string) []string {
	names := []string{model}
	if _, rest, ok := strings.Cut(model, "/"); ok {
		names = append(names, rest)
	}
	for _, n := range names[:len(names):len(names)] {
		if trimmed, ok := trimDate(n); ok {
			names = append(names, trimmed)
		}
	}
	return names
}

// trimDate removes the snapshot suffix of a dated model id
// (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06).
func trimDate(model string) (string, bool) {
	digits := func(s string) bool {
		for _, r := range s {
			if r < '0' || r > '9' {
				return false
			}
		}
		return s != ""
	}
	if i := len(model) - 9; i > 0 && model[i] == '-' && digits(model[i+1:]) {
		return model[:i], true
	}
	if i := len(model) - 11; i > 0 && model[i] == '-' && model[i+5] == '-' && model[i+8] == '-' &&
		digits(model[i+1:i+5]) && digits(model[i+6:i+8]) && digits(model[i+9:]) {
		return model[:i], true
	}
	return model, false
}

// Prices returns every model's price keyed by id.
func (t ModelTable) Prices() map[string]Price {
	out := make(map[string]Price, len(t.Models))
	for name, m := range t.Models {
		if m.InputCostPerToken > 0 || m.OutputCostPerToken > 0 {
			out[name] = m.Price()
		}
	}
	return out
}

// IsReasoningModel reports whether model is an OpenAI reasoning model
// (o1, o3, o4-mini, gpt-5 and later except the -chat variants): those
// refuse max_tokens and sampling parameters and take
// max_completion_tokens, which also covers their hidden reasoning.
func IsReasoningModel(model string) bool {
	m := strings.ToLower(model)
	if _, rest, ok := strings.Cut(m, "/"); ok {
		m = rest
	}
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	// gpt-6 and later are reasoning models too (the table marks them
	// supports_reasoning); a prefix list of "gpt-5" alone sent them
	// max_tokens, which they refuse.
	for _, p := range []string{"gpt-5", "gpt-6", "gpt-7", "gpt-8", "gpt-9"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// ModeResponses is the model table's mode for OpenAI models that only the
// Responses API serves (gpt-5-pro, the codex models, o3-pro…):
// /chat/completions refuses them.
const ModeResponses = "responses"
