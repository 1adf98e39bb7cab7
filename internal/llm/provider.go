package llm

import (
	"context"
	"encoding/json"
	"fmt"
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
	// CacheBreak, when positive, is the byte offset in Content where the
	// part shared with other calls ends; providers with explicit cache
	// marks (Anthropic) cache the prompt up to there.
	CacheBreak int
}

// CacheBreak is the character a prompt template places where its shared
// part ends (prompts.CacheBreak); the gateway removes it and records the
// offset in Message.CacheBreak.
const CacheBreak = "\x1e"

// splitCacheBreak removes every CacheBreak from s and returns the offset of
// the last one (0 when none).
func splitCacheBreak(s string) (string, int) {
	i := strings.LastIndex(s, CacheBreak)
	if i < 0 {
		return s, 0
	}
	before := strings.ReplaceAll(s[:i], CacheBreak, "")
	after := strings.ReplaceAll(s[i+len(CacheBreak):], CacheBreak, "")
	return before + after, len(before)
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
	// CacheKey, when set, names the stable prefix (system prompt and
	// schema) so providers can route repeats of it to their prompt cache
	// (OpenAI's prompt_cache_key; Anthropic caches on cache_control marks
	// and ignores it).
	CacheKey string
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
	Text string
	// InputTokens counts every input token, cached or not;
	// CacheReadTokens and CacheWriteTokens are the parts of it read from
	// and written to the provider's prompt cache, priced differently.
	InputTokens      int
	CacheReadTokens  int
	CacheWriteTokens int
	OutputTokens     int
	// Model is the model that answered, as the provider reports it.
	Model string
	// Stop says why the answer ended; StopTruncated and StopRefused are
	// outcomes of their own, never schema violations.
	Stop StopReason
	// Refusal is the model's explanation when Stop is StopRefused.
	Refusal string
}

// StopReason is the provider-neutral reason an answer ended.
type StopReason string

// Stop reasons: the answer is complete, was cut at the output limit, or
// the model refused to answer.
const (
	StopComplete  StopReason = "complete"
	StopTruncated StopReason = "truncated"
	StopRefused   StopReason = "refused"
)

// Provider is one LLM backend. Implementations must be safe for concurrent
// use and must not retry on their own: the Gateway owns retry policy.
type Provider interface {
	Complete(ctx context.Context, req Request) (Response, error)
}

// ErrorKind classifies a provider failure by what the operator must do.
type ErrorKind string

// Error kinds. Only KindTransient is retried; the others need a person:
// KindInvalidRequest means the request itself is wrong for this provider
// and model (a configuration error: model name, base URL, parameters or
// schema), KindAuth a bad or unauthorised key, KindQuota an exhausted
// quota or credit balance.
const (
	KindTransient      ErrorKind = "transient"
	KindInvalidRequest ErrorKind = "invalid_request"
	KindAuth           ErrorKind = "auth"
	KindQuota          ErrorKind = "quota"
	KindOther          ErrorKind = "other"
)

// ProviderError is an error answered by (or on the way to) a provider.
// Retryable marks transient failures: 429 (except an exhausted quota),
// 5xx, 529 overloaded, timeouts and network errors. Kind tells the
// non-retryable ones apart.
type ProviderError struct {
	Provider string
	Status   int // HTTP status; 0 for transport errors
	Kind     ErrorKind
	Message  string
	// Retryable reports whether the same request may succeed later.
	Retryable bool
	// RetryAfter is the server's requested delay (Retry-After), 0 if none.
	RetryAfter time.Duration
	// Sent marks a transport failure after the request was written: the
	// provider may have answered and billed it, so the gateway does not
	// re-send it within the call (a later invocation may).
	Sent bool
	Err  error
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
	switch {
	case e.Retryable && e.Sent:
		b.WriteString(" (transient; the request had been sent and may have been billed, so it is not re-sent within this call)")
	case e.Retryable:
		b.WriteString(" (transient)")
	case e.Kind == KindInvalidRequest:
		b.WriteString(" (the provider rejected the request: a configuration error — check the model name, base URL and provider; not retried)")
	case e.Kind == KindAuth:
		b.WriteString(" (the API key is missing, wrong or not allowed this model; not retried)")
	case e.Kind == KindQuota:
		b.WriteString(" (quota or credit exhausted; not retried until it is raised)")
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
