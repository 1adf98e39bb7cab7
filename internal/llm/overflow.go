package llm

import (
	"fmt"
)

// KindContextOverflow marks a request whose prompt does not fit the
// model's context window: not a configuration error, and not transient
// either — the same request fails again; a smaller one may not.
const KindContextOverflow ErrorKind = "context_overflow"

// ContextOverflowError is a provider's refusal of a prompt longer than the
// model's context window (Anthropic's 400 "prompt is too long", OpenAI's
// context_length_exceeded). The caller can repack its context within
// Limit less the output allowance and send once more, then escalate with
// these figures. PromptTokens and Limit are 0 when the provider's message
// does not give them.
type ContextOverflowError struct {
	Provider     string
	PromptTokens int
	Limit        int
	Err          *ProviderError
}

// Error implements error.
func (e *ContextOverflowError) Error() string {
	var figures string
	switch {
	case e.PromptTokens > 0 && e.Limit > 0:
		figures = fmt.Sprintf(" (%d tokens, the model takes %d)", e.PromptTokens, e.Limit)
	case e.Limit > 0:
		figures = fmt.Sprintf(" (the model takes %d tokens)", e.Limit)
	}
	return fmt.Sprintf("%s provider: the prompt is longer than the model's context window%s: pack less context or choose a model with a larger window; not retried as is: %s",
		e.Provider, figures, e.Err.Message)
}

// Unwrap returns the provider error, so retry decisions still see it.
func (e *ContextOverflowError) Unwrap() error { return e.Err }

// SmallerBudget is the context budget to repack with after this
// overflow, given the tokens the refused prompt's context was packed to
// (contextpack.Shrinker). When the provider gave both figures it is the
// smaller of two cuts: the context scaled by Limit/PromptTokens, and the
// context less the whole excess — the context is only part of the prompt,
// so scaling it alone can miss when the rest of the prompt is large —
// each with a tenth of the limit more as margin for the estimate's error.
// Without both figures it is three quarters of what was packed.
func (e *ContextOverflowError) SmallerBudget(packed int) int {
	if e.PromptTokens > 0 && e.Limit > 0 && e.Limit < e.PromptTokens {
		scaled := int(int64(packed) * int64(e.Limit) * 9 / (int64(e.PromptTokens) * 10))
		cut := packed - (e.PromptTokens - e.Limit) - e.Limit/10
		return max(min(scaled, cut), 0)
	}
	return packed * 3 / 4
}
