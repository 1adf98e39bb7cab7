package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogworks/cogworks/internal/retry"
)

// The transport chain, outermost first:
//
//	auth (go-github token / ghinstallation)
//	  → etagCache      conditional GETs
//	  → retryTransport 5xx, network errors, 403/429 rate limits
//	  → rateTracker    records X-RateLimit-*
//	  → requestCounter counts requests on the wire
//	  → attemptTimeout bounds each attempt
//	  → base           net/http
//
// Counting sits below retries so every attempt, and every conditional
// request answered with 304, is counted.

// requestCounter counts requests handed to the next transport, in total
// and for the RequestCount carried by the request's context.
type requestCounter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *requestCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	countRequest(req.Context())
	return c.next.RoundTrip(req)
}

// rateTracker records the last X-RateLimit-* headers seen of the core
// resource. Search answers carry their own, much smaller window (30 a
// minute); mixing the two would make the REST budget look spent.
type rateTracker struct {
	next http.RoundTripper
	mu   sync.Mutex
	core RateLimit
}

func (t *rateTracker) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil {
		if rl, ok := parseRateLimit(resp.Header); ok && rl.Core() {
			t.mu.Lock()
			t.core = rl
			t.mu.Unlock()
		}
	}
	return resp, err
}

func (t *rateTracker) set(rl RateLimit) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.core = rl
}

func (t *rateTracker) get() RateLimit {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.core
}

// parseRateLimit reads X-RateLimit-*; ok is false when the limit header is
// absent or malformed.
func parseRateLimit(h http.Header) (RateLimit, bool) {
	limit, err := strconv.Atoi(h.Get("X-RateLimit-Limit"))
	if err != nil {
		return RateLimit{}, false
	}
	rl := RateLimit{Limit: limit, Resource: h.Get("X-RateLimit-Resource")}
	rl.Remaining, _ = strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	rl.Used, _ = strconv.Atoi(h.Get("X-RateLimit-Used"))
	if reset, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
		rl.Reset = time.Unix(reset, 0)
	}
	return rl, true
}

// attemptTimeout bounds one attempt (headers and body) so that retry waits
// do not eat into the request timeout.
type attemptTimeout struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (a *attemptTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.timeout <= 0 {
		return a.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), a.timeout)
	resp, err := a.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// RetryPolicy configures retries. Zero fields take the defaults
// (3 retries, 500ms base delay, 60s max delay); a negative MaxRetries
// disables retries.
type RetryPolicy struct {
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxRetries == 0:
		p.MaxRetries = 3
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = 500 * time.Millisecond
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 60 * time.Second
	}
	return p
}

// SleepFunc waits for d or until ctx is done.
type SleepFunc = retry.SleepFunc

// retryTransport retries 5xx answers and network errors with jittered
// exponential backoff, and waits out 403/429 rate limits when the wait
// fits within MaxDelay. Request bodies are replayed through GetBody.
type retryTransport struct {
	next   http.RoundTripper
	policy RetryPolicy
	sleep  SleepFunc
	now    func() time.Time
	logger *slog.Logger
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		try := req
		if attempt > 0 {
			var err error
			if try, err = rewind(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.next.RoundTrip(try)
		last := attempt >= t.policy.MaxRetries || !replayable(req)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil || last || !safeToRepeat(req) {
				return nil, err
			}
			wait = t.backoff().Delay(attempt)
			t.logger.WarnContext(ctx, "github request failed, retrying",
				"method", req.Method, "path", req.URL.Path, "attempt", attempt+1, "wait", wait, "error", err)
		case resp.StatusCode >= 500:
			if last || !safeToRepeat(req) {
				return resp, nil
			}
			ra, hasRA := retry.ParseAfter(resp.Header.Get("Retry-After"), t.now())
			var tooLong error
			if wait, tooLong = retry.Wait(t.backoff(), attempt, ra, hasRA, t.policy.MaxDelay); tooLong != nil {
				// A 5xx asking for a long pause is still worth one
				// backoff's wait, not a run's worth.
				wait = t.backoff().Delay(attempt)
			}
			t.logger.WarnContext(ctx, "github server error, retrying",
				"method", req.Method, "path", req.URL.Path, "status", resp.StatusCode, "attempt", attempt+1, "wait", wait)
			discard(resp)
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusForbidden:
			rlErr, limited := t.rateLimited(req, resp, attempt)
			if !limited {
				return resp, nil
			}
			discard(resp)
			if last || rlErr.Wait > t.policy.MaxDelay {
				return nil, rlErr
			}
			wait = rlErr.Wait
			t.logger.WarnContext(ctx, "github rate limit, waiting",
				"method", req.Method, "path", req.URL.Path, "status", resp.StatusCode, "secondary", rlErr.Secondary, "wait", wait)
		default:
			return resp, nil
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, fmt.Errorf("wait %s before retrying %s %s: %w", wait, req.Method, req.URL.Path, err)
		}
	}
}

// safeToRepeat reports whether a request that may already have been
// applied (a 5xx or a lost connection says nothing either way) can be
// sent again without creating a second object. POSTs that create
// comments, issues, PRs or reviews cannot: a repeat would duplicate them,
// so the error goes back to the step, whose re-run finds what was made by
// its key. Content-addressed git objects and label additions repeat
// harmlessly. Rate-limit answers (429, secondary 403) are retried for
// every method because GitHub did not process the request.
func safeToRepeat(req *http.Request) bool {
	if req.Method != http.MethodPost {
		return true
	}
	p := req.URL.Path
	return strings.Contains(p, "/git/trees") || strings.Contains(p, "/git/blobs") ||
		strings.Contains(p, "/git/commits") || strings.HasSuffix(p, "/labels") || strings.HasSuffix(p, "/access_tokens")
}

// backoff is the policy's exponential backoff with equal jitter.
func (t *retryTransport) backoff() retry.Backoff {
	return retry.Backoff{Base: t.policy.BaseDelay, Max: t.policy.MaxDelay}
}

// rateLimited decides whether a 403/429 is a rate limit and how long to
// wait. A 403 without rate-limit signals (a plain permission error) is not.
func (t *retryTransport) rateLimited(req *http.Request, resp *http.Response, attempt int) (*RateLimitError, bool) {
	h := resp.Header
	e := &RateLimitError{Method: req.Method, Path: req.URL.Path, Status: resp.StatusCode}
	retryAfter, hasRetryAfter := retry.ParseAfter(h.Get("Retry-After"), t.now())
	exhausted := h.Get("X-RateLimit-Remaining") == "0"
	secondary := false
	if resp.StatusCode == http.StatusForbidden && !hasRetryAfter && !exhausted {
		body := peekBody(resp, 64<<10)
		if !strings.Contains(strings.ToLower(string(body)), "secondary rate limit") &&
			!strings.Contains(strings.ToLower(string(body)), "abuse") {
			return nil, false
		}
		secondary = true
	}
	e.Secondary = secondary || (!exhausted && hasRetryAfter)
	if rl, ok := parseRateLimit(h); ok {
		e.Reset = rl.Reset
	}
	switch {
	case hasRetryAfter:
		e.Wait = retryAfter
	case exhausted && !e.Reset.IsZero():
		e.Wait = max(e.Reset.Sub(t.now()), 0) + time.Second
	case secondary:
		// GitHub: without Retry-After, wait at least a minute.
		e.Wait = time.Minute
	default:
		e.Wait = t.backoff().Delay(attempt)
	}
	return e, true
}

// replayable reports whether the request can be sent again.
func replayable(req *http.Request) bool {
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// rewind clones req with a fresh body for a retry.
func rewind(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return r, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, fmt.Errorf("replay body of %s %s: %w", req.Method, req.URL.Path, err)
	}
	r.Body = body
	return r, nil
}

// peekBody reads up to limit bytes of the body and puts them back.
func peekBody(resp *http.Response, limit int64) []byte {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, limit))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(data), resp.Body), resp.Body}
	return data
}

// discard drains and closes a body so the connection can be reused.
func discard(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
}
