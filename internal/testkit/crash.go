package testkit

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// CrashTransport fails the K-th write request (1-based; any non-GET): with
// After false the request never reaches GitHub, with After true GitHub
// applies it and the answer is lost — the two ways a process can die
// around a write. The crashed write is answered 500. K < 1 crashes
// nothing, which counts a clean run's writes (Writes).
type CrashTransport struct {
	// Base sends every request that is not crashed (default
	// http.DefaultTransport).
	Base   http.RoundTripper
	K      int64
	After  bool
	writes atomic.Int64
}

// Writes is the number of write requests seen so far.
func (c *CrashTransport) Writes() int64 { return c.writes.Load() }

// RoundTrip implements http.RoundTripper.
func (c *CrashTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := c.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if req.Method == http.MethodGet || c.writes.Add(1) != c.K {
		return base.RoundTrip(req)
	}
	if c.After {
		if resp, err := base.RoundTrip(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return &http.Response{StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error", Request: req,
		Header: http.Header{"Content-Type": {"application/json"}},
		Body:   io.NopCloser(strings.NewReader(`{"message":"injected crash"}`))}, nil
}
