package stagekit

import (
	"sync"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// SnapshotLedger is the llm.Ledger port backed by the work item's snapshot:
// every call is booked per stage in snap.Ledger and, for a sub-work-item,
// in its record (SWI.Usage), which the engine persists in the status comment, so the pipeline budget holds
// across invocations (ASSERT-CODE-005).
type SnapshotLedger struct {
	mu   sync.Mutex
	Snap *pipeline.Snapshot
}

// Spent implements llm.Ledger: the sum of the per-stage usage (every call
// is booked under exactly one stage; the per-SWI map is a second view of
// the same calls).
func (l *SnapshotLedger) Spent() (int, float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens, usd := 0, 0.0
	for _, u := range l.Snap.Ledger.PerStage {
		tokens += u.InputTokens + u.OutputTokens
		usd += u.CostUSD
	}
	return tokens, usd
}

// Record implements llm.Ledger.
func (l *SnapshotLedger) Record(stage, swi string, u llm.Usage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Snap.Ledger.PerStage == nil {
		l.Snap.Ledger.PerStage = map[string]pipeline.Usage{}
	}
	l.Snap.Ledger.PerStage[stage] = addUsage(l.Snap.Ledger.PerStage[stage], u)
	// A call for a SWI the plan does not hold counts at its stage only.
	if w := l.Snap.SubWorkItem(swi); swi != "" && w != nil {
		w.Usage = addUsage(w.Usage, u)
	}
}

func addUsage(acc pipeline.Usage, u llm.Usage) pipeline.Usage {
	acc.Calls++
	acc.InputTokens += u.InputTokens
	acc.OutputTokens += u.OutputTokens
	acc.CostUSD += u.CostUSD
	return acc
}

// Gateway returns a gateway configured like d.LLM whose ledger is the
// snapshot's, so budget checks see everything the pipeline has spent in
// earlier invocations and every call is booked per stage and per SWI. A
// nil d.LLM yields a gateway without provider, whose calls fail with a
// clear configuration error.
func (d Deps) Gateway(snap *pipeline.Snapshot) *llm.Gateway {
	ledger := &SnapshotLedger{Snap: snap}
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
