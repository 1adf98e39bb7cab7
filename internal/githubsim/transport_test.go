package githubsim

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBarePathsAndRequestLog(t *testing.T) {
	f := setup(t)
	resp, err := http.Get(f.url + "/repos/acme/widgets?x=1")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"full_name":"acme/widgets"`)

	resp, err = http.Get(f.url + "/api/v3/no/such/route/here")
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Contains(t, string(body), `"message":"Not Found"`)
	assert.Contains(t, string(body), `"documentation_url"`)

	logs := f.srv.Requests()
	require.Len(t, logs, 2)
	assert.Equal(t, RequestLog{Method: "GET", Path: "/repos/acme/widgets", Query: "x=1", Status: 200, Time: f.clock.t}, logs[0])
	assert.Equal(t, 404, logs[1].Status)
	assert.Equal(t, "/no/such/route/here", logs[1].Path)
	assert.Equal(t, 2, f.srv.RequestCount())
	f.srv.ResetRequests()
	assert.Zero(t, f.srv.RequestCount())
}

func TestETagConditionalRequests(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	_, resp, err := f.client.Issues.Get(c, owner, name, 1)
	require.NoError(t, err)
	etag := resp.Header.Get("ETag")
	require.NotEmpty(t, etag)
	remaining := resp.Rate.Remaining

	req, err := f.client.NewRequest("GET", "repos/acme/widgets/issues/1", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", etag)
	resp, err = f.client.Do(c, req, nil)
	require.Error(t, err, "go-github reports 304 as an error response")
	assert.Equal(t, http.StatusNotModified, resp.StatusCode)
	assert.Equal(t, remaining, resp.Rate.Remaining, "304 does not count against the rate limit")

	_, _, err = f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"x"})
	require.NoError(t, err)
	req, err = f.client.NewRequest("GET", "repos/acme/widgets/issues/1", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", etag)
	var is github.Issue
	resp, err = f.client.Do(c, req, &is)
	require.NoError(t, err, "changed resource returns 200")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotEqual(t, etag, resp.Header.Get("ETag"))
}

func TestRateLimitHeadersAndExhaustion(t *testing.T) {
	f := setup(t, WithRateLimit(3))
	c := ctx(t)
	for i := 1; i <= 3; i++ {
		_, resp, err := f.client.Repositories.Get(c, owner, name)
		require.NoError(t, err)
		assert.Equal(t, "3", resp.Header.Get("X-RateLimit-Limit"))
		assert.Equal(t, strconv.Itoa(3-i), resp.Header.Get("X-RateLimit-Remaining"))
		assert.Equal(t, strconv.Itoa(i), resp.Header.Get("X-RateLimit-Used"))
		assert.Equal(t, "core", resp.Header.Get("X-RateLimit-Resource"))
		assert.Equal(t, f.clock.t.Add(time.Hour).Unix(), resp.Rate.Reset.Unix())
		assert.NotEmpty(t, resp.Header.Get("X-GitHub-Request-Id"))
	}
	// A fresh client has not seen Remaining=0, so it sends the request.
	_, _, err := clientFor(t, f.url, "").Repositories.Get(c, owner, name)
	var rle *github.RateLimitError
	require.ErrorAs(t, err, &rle)
	assert.Contains(t, rle.Message, "API rate limit exceeded")
	assert.Equal(t, 403, f.srv.Requests()[3].Status)

	f.clock.t = f.clock.t.Add(time.Hour)
	_, resp, err := clientFor(t, f.url, "").Repositories.Get(c, owner, name)
	require.NoError(t, err, "window reset")
	assert.Equal(t, "2", resp.Header.Get("X-RateLimit-Remaining"))

	f.srv.SetRateLimitRemaining(0)
	_, _, err = clientFor(t, f.url, "").Issues.ListByRepo(c, owner, name, nil)
	require.ErrorAs(t, err, &rle)
}

func TestFaultInjection(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")

	require.NoError(t, f.srv.InjectFault(Fault{Method: "POST", PathPattern: `/issues/\d+/labels$`, Status: 502, Count: 2}))
	for i := 0; i < 2; i++ {
		_, _, err := f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"x"})
		assert.Equal(t, http.StatusBadGateway, statusOf(t, err))
	}
	assert.Empty(t, f.srv.Labels(full, 1), "faulted requests do not touch state")
	_, _, err := f.client.Issues.Get(c, owner, name, 1)
	require.NoError(t, err, "method filter: GET unaffected")
	_, _, err = f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"x"})
	require.NoError(t, err, "count exhausted")

	require.NoError(t, f.srv.InjectFault(Fault{PathPattern: `^/search/`, Status: 403, RetryAfter: "7",
		Body: `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}))
	_, _, err = f.client.Search.Issues(c, "repo:acme/widgets", nil)
	var abuse *github.AbuseRateLimitError
	require.ErrorAs(t, err, &abuse)
	require.NotNil(t, abuse.RetryAfter)
	assert.Equal(t, 7*time.Second, *abuse.RetryAfter)
	f.srv.ClearFaults()
	// go-github now refuses requests until Retry-After passes; use a new client.
	f.client = clientFor(t, f.url, "")

	require.NoError(t, f.srv.InjectFault(Fault{PathPattern: `/repos/acme/widgets$`, Delay: 150 * time.Millisecond, Count: 1}))
	start := time.Now()
	_, _, err = f.client.Repositories.Get(c, owner, name)
	require.NoError(t, err, "delay-only fault serves normally")
	assert.GreaterOrEqual(t, time.Since(start), 150*time.Millisecond)
	start = time.Now()
	_, _, err = f.client.Repositories.Get(c, owner, name)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 150*time.Millisecond)

	require.Error(t, f.srv.InjectFault(Fault{PathPattern: "("}))
	require.NoError(t, f.srv.InjectFault(Fault{PathPattern: ".", Status: 500}))
	for i := 0; i < 3; i++ {
		_, _, err = f.client.Repositories.Get(c, owner, name)
		assert.Equal(t, 500, statusOf(t, err), "count 0 means forever")
	}
}

func TestConcurrentRequests(t *testing.T) {
	f := setup(t)
	f.createIssue(t, "t")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := 0; i < 20; i++ {
		wg.Add(2)
		go func(i int) {
			defer wg.Done()
			_, _, err := f.client.Issues.CreateComment(ctx(t), owner, name, 1, &github.IssueComment{Body: github.String("c" + strconv.Itoa(i))})
			errs <- err
		}(i)
		go func(i int) {
			defer wg.Done()
			_, _, err := f.client.Issues.AddLabelsToIssue(ctx(t), owner, name, 1, []string{"l" + strconv.Itoa(i%5)})
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	var all error
	for err := range errs {
		all = errors.Join(all, err)
	}
	require.NoError(t, all)
	assert.Len(t, f.srv.Comments(full, 1), 20)
	assert.Len(t, f.srv.Labels(full, 1), 5)
}

func TestListenServesRealSocket(t *testing.T) {
	srv := New()
	url, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	defer srv.Close()
	srv.CreateRepo("o", "r", "trunk")
	r, _, err := clientFor(t, url, "").Repositories.Get(ctx(t), "o", "r")
	require.NoError(t, err)
	assert.Equal(t, "trunk", r.GetDefaultBranch())
	_, err = srv.Listen("256.0.0.1:99999")
	assert.Error(t, err)
}
