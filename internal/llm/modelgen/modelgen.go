// Package modelgen builds CogWorks's shipped model table (internal/llm's
// models.json and models_source.go) from maintained, dated sources: the
// prices and model ids of the npm package @pydantic/genai-prices, the
// limits and API mode of LiteLLM's table, and a small hand-kept overlay
// of what neither carries (retirement dates with the replacement to
// name, predecessors of models LiteLLM does not list yet, models that
// refuse a forced tool_choice). `go generate ./internal/llm` runs it.
package modelgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"sort"
	"strconv"
)

// Sources are the generator's three inputs, as read from disk.
type Sources struct {
	GenAIPrices []byte // fetch.sh's dump of @pydantic/genai-prices
	LiteLLM     []byte // LiteLLM-format model table
	Lifecycle   []byte // lifecycle.json
}

// Output is what the generator writes.
type Output struct {
	ModelsJSON []byte // internal/llm/models.json
	GoSource   []byte // internal/llm/models_source.go
}

type genaiDump struct {
	Package   string `json:"package"`
	Version   string `json:"version"`
	Published string `json:"published"`
	// Checked is the day fetch.sh asked the registry: the release was the
	// newest one then, so the prices are known current up to that day.
	Checked   string `json:"checked"`
	Providers []struct {
		ID     string       `json:"id"`
		Models []genaiModel `json:"models"`
	} `json:"providers"`
}

type genaiModel struct {
	ID            string          `json:"id"`
	Match         matchLogic      `json:"match"`
	ContextWindow int             `json:"context_window"`
	Deprecated    bool            `json:"deprecated"`
	Prices        json.RawMessage `json:"prices"`
}

type lifecycle struct {
	Retire map[string]struct {
		Date        string `json:"date"`
		Replacement string `json:"replacement"`
	} `json:"retire"`
	Add map[string]struct {
		Inherit string `json:"inherit"`
	} `json:"add"`
	RefusesForcedToolChoice []string `json:"refuses_forced_tool_choice"`
}

// priceKeys maps genai-prices' per-million prices to LiteLLM's per-token
// fields.
var priceKeys = [][2]string{
	{"input_mtok", "input_cost_per_token"},
	{"output_mtok", "output_cost_per_token"},
	{"cache_read_mtok", "cache_read_input_token_cost"},
	{"cache_write_mtok", "cache_creation_input_token_cost"},
}

// Build merges the sources into the shipped table. Every LiteLLM entry is
// kept with its limits and mode; its prices are replaced by genai-prices'
// current ones where a genai-prices model matches its id; the overlay
// adds the newer models and the retirement facts. Any overlay line naming
// a model the table lacks is an error, so the overlay cannot rot quietly.
func Build(src Sources) (Output, error) {
	var genai genaiDump
	if err := json.Unmarshal(src.GenAIPrices, &genai); err != nil {
		return Output{}, fmt.Errorf("genai-prices dump: %w", err)
	}
	if genai.Version == "" || len(genai.Published) < 10 || len(genai.Checked) < 10 {
		return Output{}, fmt.Errorf("genai-prices dump: version, publication date and checked date are required (run modelgen/fetch.sh)")
	}
	asOf, checked := genai.Published[:10], genai.Checked[:10]
	if checked < asOf {
		return Output{}, fmt.Errorf("genai-prices dump: checked %s before the release's publication %s", checked, asOf)
	}
	var table map[string]map[string]any
	if err := json.Unmarshal(src.LiteLLM, &table); err != nil {
		return Output{}, fmt.Errorf("litellm table: %w", err)
	}
	delete(table, "sample_spec")
	var life lifecycle
	if err := json.Unmarshal(src.Lifecycle, &life); err != nil {
		return Output{}, fmt.Errorf("lifecycle overlay: %w", err)
	}
	byProvider := map[string][]genaiModel{}
	for _, p := range genai.Providers {
		byProvider[p.ID] = p.Models
	}
	for _, name := range sortedKeys(life.Add) {
		add := life.Add[name]
		base, ok := table[add.Inherit]
		if !ok {
			return Output{}, fmt.Errorf("lifecycle overlay: %s inherits from %s, which the table lacks", name, add.Inherit)
		}
		if _, exists := table[name]; exists {
			return Output{}, fmt.Errorf("lifecycle overlay: %s is listed by LiteLLM now: drop it from \"add\"", name)
		}
		entry := map[string]any{}
		for k, v := range base {
			if k != "deprecation_date" {
				entry[k] = v
			}
		}
		table[name] = entry
	}
	for _, name := range sortedKeys(table) {
		entry := table[name]
		provider, _ := entry["litellm_provider"].(string)
		m, err := findModel(byProvider[provider], name)
		if err != nil {
			return Output{}, err
		}
		if m == nil {
			if _, added := life.Add[name]; added {
				return Output{}, fmt.Errorf("lifecycle overlay: %s is not in %s %s", name, genai.Package, genai.Version)
			}
			continue
		}
		if err := applyPrices(entry, *m, asOf); err != nil {
			return Output{}, fmt.Errorf("%s (%s in %s): %w", name, m.ID, genai.Package, err)
		}
		// A model only genai-prices lists takes its own context window,
		// not its predecessor's.
		if _, added := life.Add[name]; m.ContextWindow > 0 && (added || entry["max_input_tokens"] == nil) {
			entry["max_input_tokens"] = m.ContextWindow
		}
	}
	for name, r := range life.Retire {
		entry, ok := table[name]
		if !ok {
			return Output{}, fmt.Errorf("lifecycle overlay: retires %s, which the table lacks", name)
		}
		if _, ok := table[r.Replacement]; !ok {
			return Output{}, fmt.Errorf("lifecycle overlay: %s's replacement %s is not in the table", name, r.Replacement)
		}
		entry["deprecation_date"], entry["replacement"] = r.Date, r.Replacement
	}
	for _, name := range life.RefusesForcedToolChoice {
		entry, ok := table[name]
		if !ok {
			return Output{}, fmt.Errorf("lifecycle overlay: %s refuses forced tool_choice but is not in the table", name)
		}
		entry["refuses_forced_tool_choice"] = true
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", " ")
	if err := enc.Encode(table); err != nil {
		return Output{}, fmt.Errorf("encode table: %w", err)
	}
	goSrc, err := format.Source([]byte(fmt.Sprintf(`// Code generated by modelgen from %[1]s %[2]s; DO NOT EDIT.

package llm

// ModelTableAsOf is the publication date of the %[1]s release the
// shipped table was generated from (go generate ./internal/llm).
const ModelTableAsOf = %[3]q

// ModelTableCheckedOn is the day the npm registry was last asked: %[2]s
// was its newest release then, so no newer prices existed on that day.
const ModelTableCheckedOn = %[5]q

// ModelTableSource names the sources of the shipped table.
const ModelTableSource = %[4]q
`, genai.Package, genai.Version, asOf,
		genai.Package+" "+genai.Version+" ("+asOf+", newest on "+checked+") prices over LiteLLM-format limits, with modelgen/lifecycle.json", checked)))
	if err != nil {
		return Output{}, fmt.Errorf("format models_source.go: %w", err)
	}
	return Output{ModelsJSON: buf.Bytes(), GoSource: goSrc}, nil
}

// findModel is the first genai-prices model whose match accepts id, the
// order genai-prices itself resolves in.
func findModel(models []genaiModel, id string) (*genaiModel, error) {
	for i := range models {
		ok, err := models[i].Match.matches(id)
		if err != nil {
			return nil, fmt.Errorf("genai-prices model %s: %w", models[i].ID, err)
		}
		if ok {
			return &models[i], nil
		}
	}
	return nil, nil
}

// applyPrices writes m's prices current at asOf into entry as LiteLLM
// per-token costs. A price list holds dated changes: the last one whose
// start_date is not after asOf applies; time-of-day discounts are skipped.
func applyPrices(entry map[string]any, m genaiModel, asOf string) error {
	prices := map[string]json.RawMessage{}
	var list []struct {
		Constraint *struct {
			Type      string `json:"type"`
			StartDate string `json:"start_date"`
		} `json:"constraint"`
		Prices map[string]json.RawMessage `json:"prices"`
	}
	if json.Unmarshal(m.Prices, &list) == nil {
		for _, c := range list {
			if c.Constraint == nil || (c.Constraint.Type == "start_date" && c.Constraint.StartDate <= asOf) {
				prices = c.Prices
			}
		}
	} else if err := json.Unmarshal(m.Prices, &prices); err != nil {
		return fmt.Errorf("prices: %w", err)
	}
	for _, k := range priceKeys {
		perM, ok := price(prices[k[0]])
		if !ok {
			continue // LiteLLM's figure stands where genai-prices has none
		}
		// Decimal scaling keeps 0.3 $/MTok as 3e-07, not 2.9999999999999997e-07.
		perToken, err := strconv.ParseFloat(strconv.FormatFloat(perM, 'f', -1, 64)+"e-6", 64)
		if err != nil {
			return fmt.Errorf("price %s: %w", k[0], err)
		}
		entry[k[1]] = perToken
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
