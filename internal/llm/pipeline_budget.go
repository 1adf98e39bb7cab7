package llm

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/internal/config"
)

// This file is the budget's policy, in one place: which limits are in
// force, which price applies (configured, from the model table, or none)
// and what the gateway enforces. internal/config holds the numbers as
// configured, the gateway (Budget, BudgetExceededError) enforces them and
// the pipeline ledger records what was spent.

// PipelineBudget is the budget in force for a repository's work items,
// derived from its config (and built-in defaults) and the model in use.
// It is the one source the LLM gateway enforces and that status,
// cost-report and demo render, so they cannot disagree.
type PipelineBudget struct {
	MaxTokens  int
	MaxCostUSD float64
	// Provider and Model are what CogWorks calls ([llm] provider / model or
	// COGWORKS_LLM_PROVIDER / COGWORKS_LLM_MODEL).
	Provider string
	Model    string
	// Price is Model's price; Priced is false when neither the config nor
	// the model table has one, in which case only MaxTokens is enforced.
	Price  Price
	Priced bool
	// Configured is set when the price came from [llm] *_price_per_mtok.
	Configured bool
	// Table is the price and limit table in force; Info is Model's entry
	// in it when Known.
	Table ModelTable
	Info  ModelInfo
	Known bool
}

// BudgetFor is the budget in force for cfg and model of provider:
// NewPipelineBudget priced from the built-in model table overlaid with
// [llm] models_file. The budget is usable whatever the error says: a
// models_file that cannot be read is skipped (the built-in table still
// prices the known models), and the error, for the caller to report,
// names it.
func BudgetFor(cfg config.Config, provider, model string) (PipelineBudget, error) {
	t, err := BuiltinModelTable()
	if err != nil {
		err = fmt.Errorf("built-in model table unreadable: %w", err)
		t = ModelTable{AsOf: ModelTableAsOf, Models: map[string]ModelInfo{}}
	}
	if cfg.LLM.ModelsFile != "" {
		extra, ferr := LoadModelTable(cfg.LLM.ModelsFile, "")
		if ferr != nil {
			err = errors.Join(err, fmt.Errorf("[llm] models_file ignored: %w", ferr))
		} else {
			for name, m := range extra.Models {
				t.Models[name] = m
			}
			t.Source = cfg.LLM.ModelsFile + " over the " + t.Source
		}
	}
	return NewPipelineBudget(cfg, provider, model, t), err
}

// NewPipelineBudget returns the budget in force for cfg's limits and
// prices, for model of provider ("" is Anthropic), priced from table.
func NewPipelineBudget(cfg config.Config, provider, model string, table ModelTable) PipelineBudget {
	if provider == "" {
		provider = ProviderAnthropic
	}
	b := PipelineBudget{
		MaxTokens:  cfg.Budgets.PipelineMaxTokens,
		MaxCostUSD: cfg.Budgets.PipelineMaxCostUSD,
		Provider:   provider,
		Model:      model,
		Table:      table,
	}
	b.Info, b.Known = b.Table.Lookup(b.Model)
	if in, out := cfg.LLM.InputPricePerMTok, cfg.LLM.OutputPricePerMTok; in != nil && out != nil {
		b.Price, b.Priced, b.Configured = Price{InputPerMTok: *in, OutputPerMTok: *out}, true, true
		if b.Known {
			// The table's cache discounts still apply to a configured price
			// in proportion.
			tp := b.Info.Price()
			if tp.InputPerMTok > 0 {
				b.Price.CacheReadPerMTok = tp.CacheReadPerMTok / tp.InputPerMTok * *in
				b.Price.CacheWritePerMTok = tp.CacheWritePerMTok / tp.InputPerMTok * *in
			}
		}
		return b
	}
	b.Price, b.Priced = LookupPrice(b.Table.Prices(), b.Model)
	return b
}

// ModelError explains a hosted model that the table does not know and no
// configured price covers; nil otherwise. Local servers (ollama, vllm) run
// any model at no per-token price with their provider's default limits.
func (b PipelineBudget) ModelError() error {
	if b.Known || b.Configured {
		return nil
	}
	switch b.Provider {
	case ProviderAnthropic, ProviderOpenAI:
	default:
		return nil
	}
	return fmt.Errorf("llm provider %q: model %q is not in the price and limit table (%s): check the model name, or set [llm] input_price_per_mtok, output_price_per_mtok, context_window and max_output_tokens in %s, or point [llm] models_file at a newer LiteLLM-format table",
		b.Provider, b.Model, b.Table.Source, config.Path)
}

// LLM returns the gateway's budget: the bounds and the price table with
// the configured price, if any, for the model in use.
func (b PipelineBudget) LLM() Budget {
	prices := b.Table.Prices()
	if b.Configured {
		prices[b.Model] = b.Price
	}
	return Budget{MaxTokens: b.MaxTokens, MaxCostUSD: b.MaxCostUSD, Prices: prices}
}

// Warning explains an unpriced model; "" when the model has a price.
func (b PipelineBudget) Warning() string {
	if b.Priced {
		return ""
	}
	return fmt.Sprintf("no price known for model %q: LLM costs show as $0 and the cost budget ($%.2f) is not enforced, only the token budget (%d tokens); set [llm] input_price_per_mtok and output_price_per_mtok in %s",
		b.Model, b.MaxCostUSD, b.MaxTokens, config.Path)
}

// PriceLine says where the price comes from and how old the table is, for
// reports.
func (b PipelineBudget) PriceLine() string {
	table := fmt.Sprintf("price table: %s, as of %s", b.Table.Source, cmp.Or(b.Table.AsOf, ModelTableAsOf))
	cache := ""
	if b.Price.CacheReadPerMTok > 0 {
		cache = fmt.Sprintf(", cache reads $%g", b.Price.CacheReadPerMTok)
		if b.Price.CacheWritePerMTok > 0 {
			cache += fmt.Sprintf(" / writes $%g", b.Price.CacheWritePerMTok)
		}
	}
	switch {
	case !b.Priced:
		return "price: unknown — " + b.Warning() + "\n" + table
	case b.Configured:
		return fmt.Sprintf("price: %s at $%g / $%g per million input / output tokens%s (from %s)\n%s", b.Model, b.Price.InputPerMTok, b.Price.OutputPerMTok, cache, config.Path, table)
	}
	return fmt.Sprintf("price: %s at $%g / $%g per million input / output tokens%s (list price from the table below; check the provider's pricing page)\n%s",
		b.Model, b.Price.InputPerMTok, b.Price.OutputPerMTok, cache, table)
}
