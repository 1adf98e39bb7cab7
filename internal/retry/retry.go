// Package retry holds the waiting half of HTTP resilience shared by the
// GitHub transport and the LLM gateway: jittered exponential backoff,
// Retry-After parsing (delta-seconds, an HTTP date, and the providers'
// retry-after-ms), a bound on how long a server may make us wait, and a
// sleep that ends with the context.
//
// What is retryable stays with each caller, because it differs: GitHub
// retries secondary rate limits and 5xx except creating POSTs; the LLM
// gateway retries 429, 5xx and 529 but not a spent quota or a 400.
package retry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SleepFunc waits for d or until ctx is done, returning ctx's error then.
// Tests inject one that records the delays instead of waiting.
type SleepFunc func(ctx context.Context, d time.Duration) error

// Sleep is the real SleepFunc: a timer raced against ctx.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Backoff is exponential backoff with jitter: attempt n (from 0) waits
// about Base·2^n, capped at Max.
type Backoff struct {
	Base, Max time.Duration
	// Jitter maps the capped delay to the delay actually waited; nil is
	// equal jitter, a random duration in [d/2, d], so retries spread out
	// but never collapse to zero.
	Jitter func(d time.Duration) time.Duration
}

// Delay returns how long to wait before retrying after attempt (0 is the
// first attempt).
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.Base << min(max(attempt, 0), 30)
	if d <= 0 || d > b.Max {
		d = b.Max
	}
	if b.Jitter != nil {
		return b.Jitter(d)
	}
	half := d / 2
	return half + rand.N(half+1)
}

// ParseAfter reads one Retry-After value: delta-seconds (fractions
// allowed, as some LLM providers send them) or an HTTP date, which is
// measured from now and never negative. ok is false when v is empty,
// negative or unparsable.
func ParseAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs != secs {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// After reads the server's requested delay from h: retry-after-ms (sent
// by OpenAI and Anthropic, finer than seconds) first, then Retry-After.
func After(h http.Header, now time.Time) (time.Duration, bool) {
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	return ParseAfter(h.Get("Retry-After"), now)
}

// TooLongError reports a server-requested wait beyond the caller's bound:
// the caller gives up rather than hold a run (or a webhook worker) for it,
// and the next invocation tries again.
type TooLongError struct {
	Asked, Limit time.Duration
}

// Error implements error.
func (e *TooLongError) Error() string {
	return fmt.Sprintf("server asked to retry after %s (more than %s)", e.Asked, e.Limit)
}

// Wait returns the delay before the next attempt: the server's requested
// delay when it sent one (hasAfter), else b's backoff for attempt. A
// requested delay over maxWait is a *TooLongError; maxWait <= 0 bounds
// nothing.
func Wait(b Backoff, attempt int, after time.Duration, hasAfter bool, maxWait time.Duration) (time.Duration, error) {
	if !hasAfter {
		return b.Delay(attempt), nil
	}
	if maxWait > 0 && after > maxWait {
		return 0, &TooLongError{Asked: after, Limit: maxWait}
	}
	return after, nil
}
