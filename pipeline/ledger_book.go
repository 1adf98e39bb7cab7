package pipeline

import "sync"

// LedgerBook is the engine's pen on a snapshot's cost ledger: the LLM
// gateway of a step books every call through it, per stage in
// Ledger.PerStage and, for a sub-work-item, in its record (SWI.Usage), and
// reads the spend back for the pipeline budget (ASSERT-CODE-005). The
// engine hands one to each executor (engine.StageInput.Ledger), so a
// stage's spending is recorded without the stage writing the snapshot.
// It is safe for concurrent use.
type LedgerBook struct {
	mu   sync.Mutex
	snap *Snapshot
}

// NewLedgerBook returns the book of s's ledger.
func NewLedgerBook(s *Snapshot) *LedgerBook { return &LedgerBook{snap: s} }

// Spent is the sum of the per-stage usage (every call is booked under
// exactly one stage; the per-SWI usage is a second view of the same calls).
func (b *LedgerBook) Spent() (tokens int, usd float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.snap.Ledger.PerStage {
		tokens += u.InputTokens + u.OutputTokens
		usd += u.CostUSD
	}
	return tokens, usd
}

// Record books u under stage and, when the plan holds swi, under that
// sub-work-item (a call for a SWI the plan does not hold counts at its
// stage only).
func (b *LedgerBook) Record(stage, swi string, u Usage) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.snap.Ledger.PerStage == nil {
		b.snap.Ledger.PerStage = map[string]Usage{}
	}
	b.snap.Ledger.PerStage[stage] = b.snap.Ledger.PerStage[stage].plus(u)
	if w := b.snap.SubWorkItem(swi); swi != "" && w != nil {
		w.Usage = w.Usage.plus(u)
	}
}

func (u Usage) plus(v Usage) Usage {
	u.Calls += v.Calls
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.CostUSD += v.CostUSD
	return u
}
