package llm

import "fmt"

// TruncatedError reports an answer that hit the output limit again after
// the one extra request a truncation gets. It is not transient: the same
// request would be cut off again, so the stage escalates with this reason.
type TruncatedError struct {
	Template, Model string
	// MaxTokens is the output limit of the last request.
	MaxTokens int
}

// Error implements error.
func (e *TruncatedError) Error() string {
	return fmt.Sprintf("the answer of model %s to %s was cut off at the output limit twice (last limit %d tokens): raise [llm] max_output_tokens, use a model with a larger output limit, or split the work item",
		e.Model, e.Template, e.MaxTokens)
}

// RefusalError reports a model that declined to answer. It is not retried
// (a refusal is a decision, not a malformed answer): the stage escalates
// with the model's own explanation.
type RefusalError struct {
	Template, Model string
	// Text is the model's explanation.
	Text string
}

// Error implements error.
func (e *RefusalError) Error() string {
	return fmt.Sprintf("model %s refused to answer %s: %s", e.Model, e.Template, e.Text)
}
