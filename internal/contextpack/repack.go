package contextpack

import (
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/internal/escalation"
)

// Shrinker is a provider's refusal of a prompt longer than the model's
// context window that says how small to repack the context
// (*llm.ContextOverflowError). It is declared here, where it is consumed,
// so the packer stays free of the LLM client.
type Shrinker interface {
	error
	// SmallerBudget is the context budget to repack to, given the tokens
	// the refused prompt's context was packed to.
	SmallerBudget(packed int) int
}

// CodeContextOverflow is the escalation code of a prompt still over the
// model's window after its context was repacked smaller.
const CodeContextOverflow = "context_overflow"

// NoLimit is the limit that lets the caller pack to its own budget.
const NoLimit = -1

// WithRepack sends a prompt whose context send packs: send(limit) packs
// to the caller's own budget, or to limit unless it is NoLimit, and
// reports the tokens it packed. When the provider refuses that prompt as
// over its context window, WithRepack repacks once, calling send with the
// smaller budget the refusal gives (0 or more); when that prompt is
// refused as well it escalates with both refusals' figures (what names the
// work, e.g. "sub-work-item 2"). It sends at most twice: an overflow is
// not transient, and the same prompt would be refused again. It returns
// the limit the last prompt was packed to, for the caller's next attempt
// of the same work to start from (a prompt refused once is not sent at its
// old size again). Every other outcome of send is returned as is.
func WithRepack(what string, limit int, send func(limit int) (packed int, err error)) (int, error) {
	packed, err := send(limit)
	var first Shrinker
	if !errors.As(err, &first) {
		return limit, err
	}
	smaller := max(first.SmallerBudget(packed), 0)
	repacked, err := send(smaller)
	var second Shrinker
	if !errors.As(err, &second) {
		return smaller, err
	}
	return smaller, &escalation.Error{Code: CodeContextOverflow, Reason: fmt.Sprintf(
		"%s: the prompt is longer than the model's context window, also after its context was repacked from %d to %d tokens (limit %d); choose a model with a larger window or split the work. First refusal: %v. Second refusal: %v",
		what, packed, repacked, smaller, first, second)}
}
