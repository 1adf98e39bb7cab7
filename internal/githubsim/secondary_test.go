package githubsim

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSecondaryRateLimitOnContentCreation(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	n := f.srv.SeedIssue(full, "alice", "t", "")
	client := f.client
	comment := func() error {
		_, _, err := client.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String("x")})
		return err
	}
	for i := range secondaryPerMinute {
		require.NoError(t, comment(), "write %d", i+1)
	}
	_, _, err := f.client.Issues.Get(c, owner, name, n)
	require.NoError(t, err, "reads are not content creation")
	err = comment()
	var abuse *github.AbuseRateLimitError
	require.True(t, errors.As(err, &abuse), "%v", err)
	require.NotNil(t, abuse.RetryAfter)
	assert.Equal(t, time.Minute, *abuse.RetryAfter)

	// go-github holds requests back itself until the wait (in real time)
	// is over; a fresh client sees the simulator's answer.
	client = clientFor(t, f.url, "")
	f.clock.t = f.clock.t.Add(time.Minute)
	require.NoError(t, comment(), "a minute later the per-minute window has room")

	// 500 an hour: 80 a minute for six more minutes passes 500.
	var refused error
	for m := 0; m < 7 && refused == nil; m++ {
		f.clock.t = f.clock.t.Add(time.Minute)
		for range secondaryPerMinute {
			if refused = comment(); refused != nil {
				break
			}
		}
	}
	require.True(t, errors.As(refused, &abuse), "%v", refused)
	assert.Greater(t, *abuse.RetryAfter, time.Minute, "the hourly limit asks for a longer wait")

	f.srv.Relax(RuleSecondaryRateLimit)
	client = clientFor(t, f.url, "")
	require.NoError(t, comment())
}

func TestActionsTokenHasAThousandRequestsAnHour(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.AddActionsToken("gha", full, map[string]string{"issues": "write"})
	gha := clientFor(t, f.url, "gha")
	_, resp, err := gha.Repositories.Get(c, owner, name)
	require.NoError(t, err)
	assert.Equal(t, actionsTokenLimit, resp.Rate.Limit)
	assert.Equal(t, "core", resp.Header.Get("X-RateLimit-Resource"))
	_, resp, err = f.client.Repositories.Get(c, owner, name)
	require.NoError(t, err)
	assert.Equal(t, 5000, resp.Rate.Limit, "other tokens keep their own budget")

	for i := 1; i < actionsTokenLimit; i++ {
		req, err := http.NewRequestWithContext(c, http.MethodGet, f.url+"/api/v3/repos/"+full, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "token gha")
		r, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		r.Body.Close()
		require.Equal(t, http.StatusOK, r.StatusCode, "request "+strconv.Itoa(i+1))
	}
	_, _, err = gha.Repositories.Get(c, owner, name)
	var rl *github.RateLimitError
	require.True(t, errors.As(err, &rl), "%v", err)
}
