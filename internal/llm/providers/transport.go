package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
)

// DefaultStreamIdleTimeout bounds the silence of a streamed answer: the
// wait for the first byte and between two reads. A long answer that
// keeps arriving is never cut, whatever its length.
const DefaultStreamIdleTimeout = 2 * time.Minute

// errStreamIdle cancels a request whose answer stopped arriving.
var errStreamIdle = errors.New("stream idle timeout")

// exchange is one HTTP request to a provider: it knows whether the
// request was written (and so may have been billed) and, when idle is
// positive, cancels it after idle without a byte of answer.
type exchange struct {
	provider string
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelCauseFunc
	idle     time.Duration
	timer    *time.Timer
	sent     atomic.Bool
}

// endpoint is where a provider's request goes and what carries it.
type endpoint struct {
	// provider names the provider in errors.
	provider string
	// client sends the request (nil: http.DefaultClient).
	client *http.Client
	// now is the clock Retry-After dates are read against (nil: time.Now).
	now     func() time.Time
	url     string
	headers http.Header
}

// send POSTs payload to e. For 2xx answers it returns the open response,
// whose body the caller reads and closes before calling x.close; other
// answers and transport failures come back classified.
func send(ctx context.Context, e endpoint, payload []byte, idle time.Duration) (*exchange, *http.Response, error) {
	provider, client, now, url := e.provider, e.client, e.now, e.url
	x := &exchange{provider: provider, parent: ctx, idle: idle}
	x.ctx, x.cancel = context.WithCancelCause(ctx)
	if client == nil {
		client = http.DefaultClient
	}
	if idle > 0 {
		// The idle timer replaces the client's whole-request time-out,
		// which would cut a long answer that is still arriving.
		c := *client
		c.Timeout = 0
		client = &c
		x.timer = time.AfterFunc(idle, func() { x.cancel(errStreamIdle) })
	}
	trace := &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		if info.Err == nil {
			x.sent.Store(true)
		}
	}}
	httpReq, err := http.NewRequestWithContext(httptrace.WithClientTrace(x.ctx, trace), http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		x.close()
		return nil, nil, fmt.Errorf("%s provider: build request for %s: %w", provider, url, err)
	}
	httpReq.Header = e.headers.Clone()
	httpReq.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(httpReq)
	if err != nil {
		x.close()
		return nil, nil, x.fail(err)
	}
	resp.Body = &idleBody{ReadCloser: resp.Body, x: x}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer x.close()
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		if err != nil {
			return nil, nil, x.fail(fmt.Errorf("read response: %w", err))
		}
		if now == nil {
			now = time.Now
		}
		pe := classifyStatus(provider, resp, raw, now())
		if overflow := contextOverflow(pe, errorCode(raw)); overflow != nil {
			return nil, nil, overflow
		}
		return nil, nil, pe
	}
	return x, resp, nil
}

// close releases the idle timer and the request's context.
func (x *exchange) close() {
	if x.timer != nil {
		x.timer.Stop()
	}
	x.cancel(nil)
}

// fail classifies a transport or read error. Caller cancellation is
// returned as is. Anything else is transient (a later invocation may
// succeed), but once the request was written the provider may have
// answered and billed it: Sent tells the gateway not to re-send it blindly.
func (x *exchange) fail(err error) error {
	if ctxErr := x.parent.Err(); ctxErr != nil {
		return fmt.Errorf("%s provider: %w", x.provider, ctxErr)
	}
	pe := &llm.ProviderError{Provider: x.provider, Kind: llm.KindTransient, Retryable: true, Sent: x.sent.Load(), Err: err}
	var te interface{ Timeout() bool }
	switch {
	case errors.Is(context.Cause(x.ctx), errStreamIdle):
		pe.Message = fmt.Sprintf("no answer data for %s (stream idle timeout)", x.idle)
	case errors.As(err, &te) && te.Timeout():
		pe.Message = "timeout"
	}
	return pe
}

// idleBody re-arms the idle timer on every read that brings data.
type idleBody struct {
	io.ReadCloser
	x *exchange
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.x.timer != nil {
		b.x.timer.Reset(b.x.idle)
	}
	return n, err
}

// postJSON POSTs body as JSON and returns the 2xx response body; non-2xx
// answers and transport failures become *llm.ProviderError (or
// *llm.ContextOverflowError). It stays a plain net/http call rather than the
// SDK clients because the gateway owns the retry policy and needs the raw
// status, error code and Retry-After.
func postJSON(ctx context.Context, e endpoint, body any) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("%s provider: encode request: %w", e.provider, err)
	}
	e.headers = e.headers.Clone()
	e.headers.Set("Accept", "application/json")
	x, resp, err := send(ctx, e, payload, 0)
	if err != nil {
		return nil, err
	}
	defer x.close()
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, x.fail(fmt.Errorf("read response: %w", err))
	}
	return raw, nil
}
