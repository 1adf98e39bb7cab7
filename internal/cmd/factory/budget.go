package factory

import (
	"fmt"
	"io"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// Budget returns the pipeline budget for cfg (llm.NewPipelineBudget has
// the policy; this wires the provider, model and price table in use).
func (f *Factory) Budget(cfg config.Config) llm.PipelineBudget {
	lc := f.LLMConfig(cfg)
	return llm.NewPipelineBudget(cfg, lc.Provider, lc.Model, f.modelTable(cfg))
}

// modelTable is the built-in table overlaid with [llm] models_file. A file
// that cannot be read is reported and skipped (the built-in table still
// prices the known models).
func (f *Factory) modelTable(cfg config.Config) llm.ModelTable {
	t, err := llm.BuiltinModelTable()
	if err != nil {
		f.Logger().Error("built-in model table unreadable", "err", err)
		t = llm.ModelTable{AsOf: llm.ModelTableAsOf, Models: map[string]llm.ModelInfo{}}
	}
	if cfg.LLM.ModelsFile == "" {
		return t
	}
	extra, err := llm.LoadModelTable(cfg.LLM.ModelsFile, "")
	if err != nil {
		f.Logger().Warn("[llm] models_file ignored", "err", err)
		return t
	}
	for name, m := range extra.Models {
		t.Models[name] = m
	}
	t.Source = cfg.LLM.ModelsFile + " over the " + t.Source
	return t
}

// FirstNonEmptyString returns the first of vs that is not empty, or "".
func FirstNonEmptyString(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// WriteCostReport renders a snapshot's costs against the budget: the cost
// table (stages, sub-work-items, budget and remaining rows) followed by
// the price line.
func WriteCostReport(w io.Writer, snap pipeline.Snapshot, b llm.PipelineBudget) error {
	_, err := fmt.Fprintf(w, "%s\n%s\n", audit.CostTable(snap.Ledger, snap.SubWorkItems, b.MaxTokens, b.MaxCostUSD), b.PriceLine())
	return err
}
