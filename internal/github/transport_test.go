package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scripted answers the n-th request with steps[n] (the last step repeats).
func scripted(t *testing.T, hits *atomic.Int64, steps ...func(w http.ResponseWriter, r *http.Request)) http.HandlerFunc {
	t.Helper()
	return func(w http.ResponseWriter, r *http.Request) {
		n := int(hits.Add(1)) - 1
		steps[min(n, len(steps)-1)](w, r)
	}
}

func issueOK(t *testing.T) func(http.ResponseWriter, *http.Request) {
	t.Helper()
	return func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(t, w, 200, map[string]any{"number": 1, "title": "ok"})
	}
}

func status(t *testing.T, code int, headers map[string]string, body map[string]any) func(http.ResponseWriter, *http.Request) {
	t.Helper()
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		writeJSON(t, w, code, body)
	}
}

func TestRateLimitRetries(t *testing.T) {
	t.Parallel()
	secondaryBody := map[string]any{"message": "You have exceeded a secondary rate limit.",
		"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}
	tests := []struct {
		name     string
		first    func(*testing.T) func(http.ResponseWriter, *http.Request)
		minWait  time.Duration
		maxWait  time.Duration
		attempts int64
	}{
		{
			name: "429 with Retry-After",
			first: func(t *testing.T) func(http.ResponseWriter, *http.Request) {
				return status(t, 429, map[string]string{"Retry-After": "7"}, nil)
			},
			minWait: 7 * time.Second, maxWait: 7 * time.Second,
		},
		{
			name: "403 secondary limit with Retry-After",
			first: func(t *testing.T) func(http.ResponseWriter, *http.Request) {
				return status(t, 403, map[string]string{"Retry-After": "3"}, secondaryBody)
			},
			minWait: 3 * time.Second, maxWait: 3 * time.Second,
		},
		{
			name:    "403 secondary limit without Retry-After waits a minute",
			first:   func(t *testing.T) func(http.ResponseWriter, *http.Request) { return status(t, 403, nil, secondaryBody) },
			minWait: time.Minute, maxWait: time.Minute,
		},
		{
			name: "403 primary quota exhausted waits for reset",
			first: func(t *testing.T) func(http.ResponseWriter, *http.Request) {
				reset := strconv.FormatInt(time.Now().Add(5*time.Second).Unix(), 10)
				return status(t, 403, map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
					"X-RateLimit-Reset": reset}, map[string]any{"message": "API rate limit exceeded"})
			},
			minWait: 4 * time.Second, maxWait: 7 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int64
			c, rec := newTestClient(t, scripted(t, &hits, tt.first(t), issueOK(t)))
			got, err := c.GetIssue(context.Background(), testRepo, 1)
			require.NoError(t, err)
			assert.Equal(t, "ok", got.Title)
			waits := rec.Recorded()
			require.Len(t, waits, 1)
			assert.GreaterOrEqual(t, waits[0], tt.minWait)
			assert.LessOrEqual(t, waits[0], tt.maxWait)
			assert.EqualValues(t, 2, hits.Load())
			assert.EqualValues(t, 2, c.Requests())
		})
	}
}

func TestRateLimitBeyondMaxDelayFailsTyped(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	c, rec := newTestClient(t, scripted(t, &hits, status(t, 429, map[string]string{"Retry-After": "3600"}, nil)),
		func(o *Options) { o.Retry.MaxDelay = time.Minute })
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, time.Hour, rl.Wait)
	assert.Equal(t, 429, rl.Status)
	assert.Equal(t, "/api/v3/repos/o/r/issues/1", rl.Path)
	assert.Empty(t, rec.Recorded())
	assert.EqualValues(t, 1, hits.Load())
}

func TestPlainForbiddenIsNotRetried(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	c, rec := newTestClient(t, scripted(t, &hits, status(t, 403, nil, map[string]any{"message": "Resource not accessible by integration"})))
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 403, apiErr.Status)
	assert.Empty(t, rec.Recorded())
	assert.EqualValues(t, 1, hits.Load())
}

func TestServerErrorRetriedThenSucceeds(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	var bodies []string
	handler := func(code int) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			data, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			bodies = append(bodies, string(data))
			if code >= 500 {
				writeJSON(t, w, code, map[string]any{"message": "oops"})
				return
			}
			writeJSON(t, w, 200, []map[string]any{{"name": "cogworks:run"}})
		}
	}
	c, rec := newTestClient(t, scripted(t, &hits, handler(502), handler(503), handler(200)),
		func(o *Options) { o.Retry = RetryPolicy{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: time.Minute} })
	// Adding a label twice has the same effect as once, so the POST repeats.
	require.NoError(t, c.AddLabels(context.Background(), testRepo, 1, "cogworks:run"))
	assert.EqualValues(t, 3, c.Requests())
	require.Len(t, bodies, 3)
	assert.Equal(t, bodies[0], bodies[2], "POST body is replayed on retry")
	assert.JSONEq(t, `{"labels":["cogworks:run"]}`, bodies[2], "the form GitHub's description states")
	waits := rec.Recorded()
	require.Len(t, waits, 2)
	assert.InDelta(t, float64(750*time.Millisecond), float64(waits[0]), float64(250*time.Millisecond), "attempt 1 backoff in [0.5s,1s]")
	assert.InDelta(t, float64(1500*time.Millisecond), float64(waits[1]), float64(500*time.Millisecond), "attempt 2 backoff in [1s,2s]")
}

// A 502 on a creating POST may hide an applied write: repeating it could
// post the comment twice, so the error goes back to the step, whose re-run
// finds the comment by its key.
func TestCreatingPostIsNotRepeatedAfterServerError(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	c, rec := newTestClient(t, scripted(t, &hits, status(t, 502, nil, map[string]any{"message": "Bad Gateway"})),
		func(o *Options) { o.Retry = RetryPolicy{MaxRetries: 3, BaseDelay: time.Second, MaxDelay: time.Minute} })
	_, err := c.CreateComment(context.Background(), testRepo, 1, "hello")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.Status)
	assert.True(t, apiErr.Transient(), "the step may be retried as a whole")
	assert.EqualValues(t, 1, hits.Load(), "sent once")
	assert.Empty(t, rec.Recorded())
}

func TestServerErrorRetriesExhausted(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	c, rec := newTestClient(t, scripted(t, &hits, status(t, 502, nil, map[string]any{"message": "Bad Gateway"})),
		func(o *Options) { o.Retry.MaxRetries = 2 })
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.Status)
	assert.True(t, apiErr.Transient())
	assert.EqualValues(t, 3, hits.Load())
	assert.EqualValues(t, 3, c.Requests())
	assert.Len(t, rec.Recorded(), 2)
}

func TestNetworkErrorRetried(t *testing.T) {
	t.Parallel()
	var failures atomic.Int64
	c, rec := newTestClient(t, http.HandlerFunc(issueOK(t)), func(o *Options) {
		base := http.DefaultTransport.(*http.Transport).Clone()
		o.Transport = roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if failures.Add(1) == 1 {
				return nil, errors.New("connection reset by peer")
			}
			return base.RoundTrip(r)
		})
	})
	got, err := c.GetIssue(context.Background(), testRepo, 1)
	require.NoError(t, err)
	assert.Equal(t, "ok", got.Title)
	assert.EqualValues(t, 2, c.Requests())
	assert.Len(t, rec.Recorded(), 1)
}

func TestRetriesStopWhenContextCancelled(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	c, _ := newTestClient(t, scripted(t, &hits, status(t, 500, nil, nil)), func(o *Options) {
		o.Sleep = func(ctx context.Context, d time.Duration) error { return context.Canceled }
	})
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualValues(t, 1, hits.Load())
}

func TestRateLimitTracking(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "5000")
		w.Header().Set("X-RateLimit-Remaining", "4990")
		w.Header().Set("X-RateLimit-Used", "10")
		w.Header().Set("X-RateLimit-Reset", "1717236000")
		writeJSON(t, w, 200, map[string]any{"number": 1})
	}))
	assert.Equal(t, RateLimit{}, c.RateLimit())
	_, err := c.GetIssue(context.Background(), testRepo, 1)
	require.NoError(t, err)
	assert.Equal(t, RateLimit{Limit: 5000, Remaining: 4990, Used: 10, Reset: time.Unix(1717236000, 0)}, c.RateLimit())
}

func TestRateLimitTracksTheCoreResourceOnly(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Reset", "1717236000")
		if r.URL.Path == "/search/issues" {
			w.Header().Set("X-RateLimit-Limit", "30")
			w.Header().Set("X-RateLimit-Remaining", "29")
			w.Header().Set("X-RateLimit-Resource", "search")
			writeJSON(t, w, 200, map[string]any{"total_count": 0, "items": []any{}})
			return
		}
		w.Header().Set("X-RateLimit-Limit", "1000")
		w.Header().Set("X-RateLimit-Remaining", "880")
		w.Header().Set("X-RateLimit-Resource", "core")
		writeJSON(t, w, 200, map[string]any{"number": 1})
	}))
	ctx := context.Background()
	_, err := c.GetIssue(ctx, testRepo, 1)
	require.NoError(t, err)
	_, err = c.SearchIssues(ctx, "repo:o/r is:issue")
	require.NoError(t, err)
	rl := c.RateLimit()
	assert.Equal(t, 880, rl.Remaining, "a search answer does not replace the REST window")
	assert.Equal(t, 1000, rl.Limit)
	assert.True(t, rl.Core())
}

func TestETagConditionalRequestServesCachedBody(t *testing.T) {
	t.Parallel()
	var conditional atomic.Int64
	c, _ := newTestClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-RateLimit-Limit", "5000")
		if r.Header.Get("If-None-Match") == `"v1"` {
			conditional.Add(1)
			w.Header().Set("X-RateLimit-Remaining", "4999")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("X-RateLimit-Remaining", "4998")
		writeJSON(t, w, 200, map[string]any{"number": 1, "title": "cached title"})
	}))
	ctx := context.Background()
	first, err := c.GetIssue(ctx, testRepo, 1)
	require.NoError(t, err)
	second, err := c.GetIssue(ctx, testRepo, 1)
	require.NoError(t, err)

	assert.Equal(t, first, second)
	assert.Equal(t, "cached title", second.Title)
	assert.EqualValues(t, 1, conditional.Load(), "the second GET carries If-None-Match")
	assert.EqualValues(t, 2, c.Requests(), "the conditional request is counted")
	assert.Equal(t, 4999, c.RateLimit().Remaining, "rate limit comes from the 304")
}

func TestETagCacheKeyIncludesCredentials(t *testing.T) {
	t.Parallel()
	var sawConditional []bool
	cache := newETagCache(roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		sawConditional = append(sawConditional, r.Header.Get("If-None-Match") != "")
		h := http.Header{}
		h.Set("ETag", `"e"`)
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(http.NoBody), Request: r}, nil
	}), 8)
	get := func(auth string) {
		req, err := http.NewRequest(http.MethodGet, "http://x/repos/o/r", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", auth)
		resp, err := cache.RoundTrip(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	get("token a")
	get("token b")
	get("token a")
	assert.Equal(t, []bool{false, false, true}, sawConditional)
	for _, k := range cache.entries.Keys() {
		assert.NotContains(t, k, "token a")
	}
}

func TestETagCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	cache := newETagCache(nil, 2)
	for i := range 3 {
		cache.store(&cacheEntry{key: fmt.Sprint(i), etag: "e"})
	}
	assert.Nil(t, cache.lookup("0"))
	assert.NotNil(t, cache.lookup("1"))
	assert.NotNil(t, cache.lookup("2"))

	// A lookup makes an entry recent: "1" outlives "2".
	cache.lookup("1")
	cache.store(&cacheEntry{key: "3", etag: "e"})
	assert.NotNil(t, cache.lookup("1"))
	assert.Nil(t, cache.lookup("2"))
}

func TestETagCacheOffBelowSizeOne(t *testing.T) {
	t.Parallel()
	var conditional int
	cache := newETagCache(roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("If-None-Match") != "" {
			conditional++
		}
		h := http.Header{}
		h.Set("ETag", `"e"`)
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(http.NoBody), Request: r}, nil
	}), -1)
	for range 2 {
		req, err := http.NewRequest(http.MethodGet, "http://x/repos/o/r", nil)
		require.NoError(t, err)
		resp, err := cache.RoundTrip(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	assert.Zero(t, conditional, "a disabled cache never makes a GET conditional")
}

func TestRetryWaitSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		first            func(*testing.T) func(http.ResponseWriter, *http.Request)
		minWait, maxWait time.Duration
	}{
		{"503 honours Retry-After", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			return status(t, 503, map[string]string{"Retry-After": "2"}, nil)
		}, 2 * time.Second, 2 * time.Second},
		{"503 honours a Retry-After date", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			at := time.Now().Add(3 * time.Second).UTC().Format(http.TimeFormat)
			return status(t, 503, map[string]string{"Retry-After": at}, nil)
		}, time.Second, 3 * time.Second},
		{"503 asking for more than MaxDelay backs off instead", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			return status(t, 503, map[string]string{"Retry-After": "3600"}, nil)
		}, 250 * time.Millisecond, 500 * time.Millisecond},
		{"429 without headers backs off", func(t *testing.T) func(http.ResponseWriter, *http.Request) {
			return status(t, 429, nil, nil)
		}, 250 * time.Millisecond, 500 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int64
			c, rec := newTestClient(t, scripted(t, &hits, tt.first(t), issueOK(t)))
			_, err := c.GetIssue(context.Background(), testRepo, 1)
			require.NoError(t, err)
			waits := rec.Recorded()
			require.Len(t, waits, 1)
			assert.GreaterOrEqual(t, waits[0], tt.minWait)
			assert.LessOrEqual(t, waits[0], tt.maxWait)
		})
	}
}
