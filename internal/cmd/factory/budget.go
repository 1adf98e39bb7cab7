package factory

import (
	"fmt"
	"io"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// Budget returns the pipeline budget for cfg (llm.BudgetFor has the
// policy; this names the provider and model in use and reports a model
// table that could not be read).
func (f *Factory) Budget(cfg config.Config) llm.PipelineBudget {
	lc := f.LLMConfig(cfg)
	b, err := llm.BudgetFor(cfg, lc.Provider, lc.Model)
	if err != nil {
		f.Logger().Warn("model table", "err", err)
	}
	return b
}

// WriteCostReport renders a snapshot's costs against the budget: the cost
// table (stages, sub-work-items, budget and remaining rows) followed by
// the price line.
func WriteCostReport(w io.Writer, snap pipeline.Snapshot, b llm.PipelineBudget) error {
	_, err := fmt.Fprintf(w, "%s\n%s\n", audit.CostTable(snap.Ledger, snap.SubWorkItems, b.MaxTokens, b.MaxCostUSD), b.PriceLine())
	return err
}
