package github

import (
	"context"
	"sync/atomic"
)

// RequestCount counts the GitHub requests sent with one context, on the
// wire like Client.Requests (retries and conditional requests included).
// Unlike Client.Requests it counts only the requests of the work done
// under its context, so concurrent steps sharing one Client each get their
// own figure.
type RequestCount struct {
	n      atomic.Int64
	parent *RequestCount
}

// Load returns the number of requests counted so far.
func (c *RequestCount) Load() int64 {
	if c == nil {
		return 0
	}
	return c.n.Load()
}

func (c *RequestCount) add() {
	for ; c != nil; c = c.parent {
		c.n.Add(1)
	}
}

type requestCountKey struct{}

// WithRequestCounter returns a context whose GitHub requests are counted
// by the returned RequestCount. Counters nest: a request counts for every
// counter of the context chain, so a per-step counter inside a per-run one
// leaves both right.
func WithRequestCounter(ctx context.Context) (context.Context, *RequestCount) {
	parent, _ := ctx.Value(requestCountKey{}).(*RequestCount)
	c := &RequestCount{parent: parent}
	return context.WithValue(ctx, requestCountKey{}, c), c
}

// countRequest adds one to the counters carried by ctx, if any.
func countRequest(ctx context.Context) {
	if c, ok := ctx.Value(requestCountKey{}).(*RequestCount); ok {
		c.add()
	}
}
