package stagekit

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// bookLedger is the llm.Ledger port over the engine's book of the
// snapshot's ledger (engine.StageInput.Ledger).
type bookLedger struct{ book *pipeline.LedgerBook }

// Spent implements llm.Ledger.
func (l bookLedger) Spent() (int, float64) { return l.book.Spent() }

// Record implements llm.Ledger: one call of u.
func (l bookLedger) Record(stage, swi string, u llm.Usage) {
	l.book.Record(stage, swi, pipeline.Usage{Calls: 1, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, CostUSD: u.CostUSD})
}

// Gateway returns a gateway configured like d.LLM whose ledger is the
// step's book of the snapshot's ledger (in.Book()), so budget checks see
// everything the pipeline has spent in earlier invocations and every call
// is booked per stage and per SWI. A nil d.LLM yields a gateway without
// provider, whose calls fail with a clear configuration error.
func (d Deps) Gateway(in engine.StageInput) *llm.Gateway {
	ledger := bookLedger{book: in.Book()}
	g := d.LLM
	if g == nil {
		return &llm.Gateway{Ledger: ledger}
	}
	// Field by field: a Gateway holds a schema cache with a mutex and must
	// not be copied as a value.
	return &llm.Gateway{
		Provider:         g.Provider,
		Prompts:          g.Prompts,
		Ledger:           ledger,
		Budget:           g.Budget,
		Model:            g.Model,
		MaxTokens:        g.MaxTokens,
		SchemaRetries:    g.SchemaRetries,
		TransientRetries: g.TransientRetries,
		BaseBackoff:      g.BaseBackoff,
		MaxBackoff:       g.MaxBackoff,
		MaxRetryAfter:    g.MaxRetryAfter,
		Redact:           g.Redact,
		Sleep:            g.Sleep,
		Jitter:           g.Jitter,
		Now:              g.Now,
		Observer:         g.Observer,
	}
}
