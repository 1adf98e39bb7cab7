package providers

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/retry"
)

// classifyStatus builds the llm.ProviderError for a non-2xx HTTP answer:
// the wire formats' error shapes, read here beside the providers that
// receive them.
func classifyStatus(provider string, resp *http.Response, body []byte, now time.Time) *llm.ProviderError {
	pe := &llm.ProviderError{
		Provider: provider,
		Status:   resp.StatusCode,
		Message:  errorMessage(body),
		Kind:     llm.KindOther,
	}
	code := errorCode(body)
	switch {
	case code == "insufficient_quota" || code == "billing_hard_limit_reached" ||
		strings.Contains(strings.ToLower(pe.Message), "credit balance is too low"):
		// OpenAI answers an exhausted quota with 429 and Anthropic an empty
		// credit balance with 400: waiting does not help either.
		pe.Kind = llm.KindQuota
	case resp.StatusCode == http.StatusTooManyRequests,
		resp.StatusCode == http.StatusRequestTimeout,
		resp.StatusCode == http.StatusConflict, // a lock conflict, retried by both SDKs
		resp.StatusCode >= 500:                 // includes Anthropic's 529 overloaded
		pe.Kind = llm.KindTransient
		pe.Retryable = true
		pe.RetryAfter = parseRetryAfter(resp.Header, now)
	case resp.StatusCode == http.StatusUnauthorized, resp.StatusCode == http.StatusForbidden:
		pe.Kind = llm.KindAuth
	case resp.StatusCode == http.StatusBadRequest, resp.StatusCode == http.StatusNotFound,
		resp.StatusCode == http.StatusUnprocessableEntity, resp.StatusCode == http.StatusRequestEntityTooLarge:
		pe.Kind = llm.KindInvalidRequest
	}
	// The SDKs obey the server's x-should-retry over the status code.
	switch resp.Header.Get("x-should-retry") {
	case "true":
		if pe.Kind != llm.KindQuota {
			pe.Kind, pe.Retryable = llm.KindTransient, true
			pe.RetryAfter = parseRetryAfter(resp.Header, now)
		}
	case "false":
		if pe.Retryable {
			pe.Kind, pe.Retryable, pe.RetryAfter = llm.KindOther, false, 0
		}
	}
	return pe
}

// errorCode reads error.code (OpenAI) or error.type (Anthropic).
func errorCode(body []byte) string {
	var env struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	if c, ok := env.Error.Code.(string); ok && c != "" {
		return c
	}
	return env.Error.Type
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

// parseRetryAfter is the server's requested delay (retry-after-ms, then
// Retry-After as seconds or an HTTP date); 0 when absent, unparsable or
// zero, so that backoff applies.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	d, _ := retry.After(h, now)
	return d
}

// Overflow message shapes: Anthropic "prompt is too long: 215000 tokens >
// 200000 maximum"; OpenAI "maximum context length is 128000 tokens.
// However, your messages resulted in 130532 tokens".
var (
	anthropicOverflow = regexp.MustCompile(`prompt is too long:\s*(\d+)\s*tokens\s*>\s*(\d+)`)
	openaiLimit       = regexp.MustCompile(`maximum context length is (\d+) tokens`)
	openaiPrompt      = regexp.MustCompile(`resulted in (\d+) tokens`)
)

// contextOverflow returns the typed error when pe (with the answer's
// error code) is a context-window overflow, else nil.
func contextOverflow(pe *llm.ProviderError, code string) *llm.ContextOverflowError {
	if pe.Status != 400 && pe.Status != 413 {
		return nil
	}
	msg := strings.ToLower(pe.Message)
	if code != "context_length_exceeded" && !strings.Contains(msg, "prompt is too long") &&
		!strings.Contains(msg, "maximum context length") {
		return nil
	}
	pe.Kind, pe.Retryable = llm.KindContextOverflow, false
	e := &llm.ContextOverflowError{Provider: pe.Provider, Err: pe}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := anthropicOverflow.FindStringSubmatch(msg); m != nil {
		e.PromptTokens, e.Limit = atoi(m[1]), atoi(m[2])
	}
	if m := openaiLimit.FindStringSubmatch(msg); m != nil {
		e.Limit = atoi(m[1])
	}
	if m := openaiPrompt.FindStringSubmatch(msg); m != nil {
		e.PromptTokens = atoi(m[1])
	}
	return e
}
