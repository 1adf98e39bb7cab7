package cli

import (
	"fmt"
	"io"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// PipelineBudget is the budget in force for a repository's work items,
// derived from its config (and built-in defaults) and the model in use.
// It is the one source the LLM gateway enforces and that status,
// cost-report and demo render, so they cannot disagree.
type PipelineBudget struct {
	MaxTokens  int
	MaxCostUSD float64
	// Model is the model CogWorks calls ([llm] model or COGWORKS_LLM_MODEL).
	Model string
	// Price is Model's price; Priced is false when neither the config nor
	// the built-in table has one, in which case only MaxTokens is enforced.
	Price  llm.Price
	Priced bool
	// Configured is set when the price came from [llm] *_price_per_mtok.
	Configured bool
}

// Budget returns the pipeline budget for cfg.
func (f *Factory) Budget(cfg config.Config) PipelineBudget {
	b := PipelineBudget{
		MaxTokens:  cfg.Budgets.PipelineMaxTokens,
		MaxCostUSD: cfg.Budgets.PipelineMaxCostUSD,
		Model:      f.LLMConfig(cfg).Model,
	}
	if in, out := cfg.LLM.InputPricePerMTok, cfg.LLM.OutputPricePerMTok; in != nil && out != nil {
		b.Price, b.Priced, b.Configured = llm.Price{InputPerMTok: *in, OutputPerMTok: *out}, true, true
		return b
	}
	b.Price, b.Priced = llm.LookupPrice(llm.BuiltinPrices(), b.Model)
	return b
}

// LLM returns the gateway's budget: the bounds and the price table with
// the configured price, if any, for the model in use.
func (b PipelineBudget) LLM() llm.Budget {
	prices := llm.BuiltinPrices()
	if b.Configured {
		prices[b.Model] = b.Price
	}
	return llm.Budget{MaxTokens: b.MaxTokens, MaxCostUSD: b.MaxCostUSD, Prices: prices}
}

// Warning explains an unpriced model; "" when the model has a price.
func (b PipelineBudget) Warning() string {
	if b.Priced {
		return ""
	}
	return fmt.Sprintf("no price known for model %q: LLM costs show as $0 and the cost budget ($%.2f) is not enforced, only the token budget (%d tokens); set [llm] input_price_per_mtok and output_price_per_mtok in %s",
		b.Model, b.MaxCostUSD, b.MaxTokens, config.Path)
}

// PriceLine says where the price comes from, for reports.
func (b PipelineBudget) PriceLine() string {
	switch {
	case !b.Priced:
		return "price: unknown — " + b.Warning()
	case b.Configured:
		return fmt.Sprintf("price: %s at $%g / $%g per million input / output tokens (from %s)", b.Model, b.Price.InputPerMTok, b.Price.OutputPerMTok, config.Path)
	}
	return fmt.Sprintf("price: %s at $%g / $%g per million input / output tokens (built-in list price as of %s; check the provider's pricing page)",
		b.Model, b.Price.InputPerMTok, b.Price.OutputPerMTok, llm.PricesAsOf)
}

// writeCostReport renders a snapshot's costs against the budget: the cost
// table (stages, sub-work-items, budget and remaining rows) followed by
// the price line.
func writeCostReport(w io.Writer, snap pipeline.Snapshot, b PipelineBudget) error {
	_, err := fmt.Fprintf(w, "%s\n%s\n", audit.CostTable(snap.Ledger, snap.SubWorkItems, b.MaxTokens, b.MaxCostUSD), b.PriceLine())
	return err
}
