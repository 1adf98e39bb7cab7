package llm

import (
	"fmt"
	"sync"
)

// Usage is the token and cost accounting of one provider call.
type Usage struct {
	Model string
	// InputTokens counts all input tokens; CacheReadTokens and
	// CacheWriteTokens are the parts of them read from and written to the
	// provider's prompt cache.
	InputTokens      int
	CacheReadTokens  int
	CacheWriteTokens int
	OutputTokens     int
	CostUSD          float64
}

// Ledger is the port through which the gateway reads what the pipeline has
// spent so far and records each provider call. The caller persists it (the
// state snapshot's ledger), so budgets hold across invocations.
type Ledger interface {
	Spent() (tokens int, usd float64)
	Record(stage, swi string, u Usage)
}

// UsageObserver is told about each answered provider call with the stage
// that made it, for metrics. It must be safe for concurrent use.
type UsageObserver interface {
	LLMUsage(stage string, u Usage)
}

// Price is a model's price in USD per million tokens. Cache prices of 0
// mean "priced as ordinary input" (no discount known).
type Price struct {
	InputPerMTok  float64
	OutputPerMTok float64
	// CacheReadPerMTok prices input read from the prompt cache (Anthropic
	// 0.1×, OpenAI 0.1–0.5× of input); CacheWritePerMTok input written to
	// it (Anthropic 1.25×; OpenAI does not charge for writes).
	CacheReadPerMTok  float64
	CacheWritePerMTok float64
}

// Budget bounds what a pipeline may spend. A zero MaxTokens or MaxCostUSD
// disables that bound. Models are priced from Prices (see LookupPrice);
// a model with no price costs $0 and is held to the token bound only:
// the cost bound cannot be enforced without a price.
type Budget struct {
	MaxTokens  int
	MaxCostUSD float64
	Prices     map[string]Price
}

// Price returns model's price and whether one is known.
func (b Budget) Price(model string) (Price, bool) {
	return LookupPrice(b.Prices, model)
}

// Cost prices a call of model with the given token counts, all input
// uncached ($0 for a model without a price).
func (b Budget) Cost(model string, in, out int) float64 {
	return b.UsageCost(Usage{Model: model, InputTokens: in, OutputTokens: out})
}

// UsageCost prices u, cache reads and writes at their own rates.
func (b Budget) UsageCost(u Usage) float64 {
	p, _ := b.Price(u.Model)
	read, write := p.CacheReadPerMTok, p.CacheWritePerMTok
	if read == 0 {
		read = p.InputPerMTok
	}
	if write == 0 {
		write = p.InputPerMTok
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*p.InputPerMTok + float64(u.CacheReadTokens)*read +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.OutputPerMTok) / 1e6
}

// fraction is the larger of the used fractions of the token and cost
// bounds (0 when no bound is set).
func (b Budget) fraction(tokens int, usd float64) float64 {
	f := 0.0
	if b.MaxTokens > 0 {
		f = float64(tokens) / float64(b.MaxTokens)
	}
	if b.MaxCostUSD > 0 {
		if c := usd / b.MaxCostUSD; c > f {
			f = c
		}
	}
	return f
}

// Budget units reported by BudgetExceededError.
const (
	UnitTokens = "tokens"
	UnitUSD    = "usd"
)

// BudgetExceededError is returned, before any request is sent, when the
// accumulated spend plus the call's estimate would exceed the budget
// (ASSERT-CODE-005). The caller halts the pipeline and renders the cost
// report from its ledger.
type BudgetExceededError struct {
	Stage, SWI string
	// Unit is UnitTokens or UnitUSD: which bound would be exceeded.
	Unit      string
	Spent     float64
	Estimated float64
	Limit     float64
}

// Error implements error.
func (e *BudgetExceededError) Error() string {
	where := e.Stage
	if e.SWI != "" {
		where += " / " + e.SWI
	}
	if e.Unit == UnitUSD {
		return fmt.Sprintf("budget exceeded at %s: spent $%.4f + estimated $%.4f > limit $%.4f", where, e.Spent, e.Estimated, e.Limit)
	}
	return fmt.Sprintf("budget exceeded at %s: spent %.0f + estimated %.0f tokens > limit %.0f tokens", where, e.Spent, e.Estimated, e.Limit)
}

// MemoryLedger is an in-memory Ledger, for tests, `demo` and callers that
// load the spent totals from their own store. It is safe for concurrent use.
type MemoryLedger struct {
	mu      sync.Mutex
	tokens  int
	usd     float64
	entries []LedgerEntry
}

// LedgerEntry is one recorded call of a MemoryLedger.
type LedgerEntry struct {
	Stage, SWI string
	Usage      Usage
}

// NewMemoryLedger starts a ledger at the given totals.
func NewMemoryLedger(tokens int, usd float64) *MemoryLedger {
	return &MemoryLedger{tokens: tokens, usd: usd}
}

// Spent implements Ledger.
func (l *MemoryLedger) Spent() (int, float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tokens, l.usd
}

// Record implements Ledger.
func (l *MemoryLedger) Record(stage, swi string, u Usage) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens += u.InputTokens + u.OutputTokens
	l.usd += u.CostUSD
	l.entries = append(l.entries, LedgerEntry{Stage: stage, SWI: swi, Usage: u})
}

// Entries returns a copy of the recorded calls in order.
func (l *MemoryLedger) Entries() []LedgerEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]LedgerEntry(nil), l.entries...)
}
