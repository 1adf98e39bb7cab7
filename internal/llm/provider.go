package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Role is the author of a conversation message.
type Role string

// Conversation roles understood by every provider.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one turn of the conversation sent to a provider.
type Message struct {
	Role    Role
	Content string
}

// Request is a provider-neutral completion request.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation, starting with a user turn.
	Messages []Message
	// Schema is a self-contained JSON Schema (object) the answer must match.
	// When nil the provider returns free text in Response.Text.
	Schema json.RawMessage
	// SchemaName names the schema (tool name for Anthropic, json_schema name
	// for OpenAI); it must match ^[a-zA-Z0-9_-]{1,64}$.
	SchemaName string
	// MaxTokens bounds the answer's length.
	MaxTokens int
	// Model overrides the provider's default model when not empty.
	Model string
	// Template names the prompt template the request was rendered from. It
	// is informational: real providers ignore it; the scripted provider keys
	// its script on it.
	Template string
}

// Response is a provider-neutral completion result.
type Response struct {
	// Content is the structured answer (a JSON value) when the request had
	// a schema.
	Content json.RawMessage
	// Text is the free-text answer when the request had no schema.
	Text         string
	InputTokens  int
	OutputTokens int
	// Model is the model that answered, as the provider reports it.
	Model string
}

// Provider is one LLM backend. Implementations must be safe for concurrent
// use and must not retry on their own: the Gateway owns retry policy.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ProviderError is an error answered by (or on the way to) a provider.
// Retryable marks transient failures: 429, 5xx, 529 overloaded, timeouts and
// network errors. 400/401/403 and other 4xx are not retryable.
type ProviderError struct {
	Provider string
	Status   int // HTTP status; 0 for transport errors
	Message  string
	// Retryable reports whether the same request may succeed later.
	Retryable bool
	// RetryAfter is the server's requested delay (Retry-After), 0 if none.
	RetryAfter time.Duration
	Err        error
}

// Error implements error.
func (e *ProviderError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s provider", e.Provider)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Retryable {
		b.WriteString(" (transient)")
	}
	return b.String()
}

// Unwrap returns the underlying transport error, if any.
func (e *ProviderError) Unwrap() error { return e.Err }

// Transient reports whether a later invocation may succeed (an outage, not
// a refusal): the gateway retries the call, and past its retries the
// engine keeps the stage and retries next time.
func (e *ProviderError) Transient() bool { return e.Retryable }

// MalformedError reports an answer that cannot be read as the requested
// structured output (not JSON, no tool_use block, empty content). The
// Gateway treats it as a schema violation and retries with feedback.
type MalformedError struct {
	Provider string
	Reason   string
	// Raw is the unusable answer text, if any, fed back to the model.
	Raw string
}

// Error implements error.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s provider: malformed answer: %s", e.Provider, e.Reason)
}

// EstimateTokens is the conservative token estimate used wherever a real
// tokenizer is not available: one token per three bytes, rounded up. Real
// BPE tokenizers average about four bytes per token on English and code, so
// this over-estimates, which is the safe side for budgets and windows.
func EstimateTokens(s string) int {
	return (len(s) + 2) / 3
}

// EstimateRequestTokens estimates the input tokens of a request.
func EstimateRequestTokens(req Request) int {
	n := EstimateTokens(req.System) + EstimateTokens(string(req.Schema))
	for _, m := range req.Messages {
		n += EstimateTokens(m.Content)
	}
	return n
}

// classifyStatus builds the ProviderError for a non-2xx HTTP answer.
func classifyStatus(provider string, resp *http.Response, body []byte, now time.Time) *ProviderError {
	pe := &ProviderError{
		Provider: provider,
		Status:   resp.StatusCode,
		Message:  errorMessage(body),
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests,
		resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode >= 500: // includes Anthropic's 529 overloaded
		pe.Retryable = true
		pe.RetryAfter = parseRetryAfter(resp.Header, now)
	}
	return pe
}

// errorMessage extracts {"error":{"message":...}} (both wire formats) or
// falls back to a truncated body.
func errorMessage(body []byte) string {
	var env struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error.Message != "" {
		if env.Error.Type != "" {
			return env.Error.Type + ": " + env.Error.Message
		}
		return env.Error.Message
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// parseRetryAfter reads retry-after-ms, then Retry-After (seconds or an
// HTTP date). It returns 0 when absent or unparsable.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// transportError classifies an error from http.Client.Do: caller
// cancellation is returned as is; anything else (timeouts, refused
// connections, resets) is a transient ProviderError.
func transportError(ctx context.Context, provider string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s provider: %w", provider, ctxErr)
	}
	pe := &ProviderError{Provider: provider, Retryable: true, Err: err}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		pe.Message = "timeout"
	}
	return pe
}
