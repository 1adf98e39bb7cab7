package githubsim

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

const (
	owner = "acme"
	name  = "widgets"
	full  = owner + "/" + name
)

// fixedClock is a settable clock for deterministic timestamps.
type fixedClock struct{ t time.Time }

func (f *fixedClock) now() time.Time { return f.t }

type fixture struct {
	srv    *Server
	client *github.Client
	clock  *fixedClock
	url    string
}

// setup starts a simulator with acme/widgets (default branch main) and a
// go-github client pointed at it through the enterprise URLs.
func setup(t *testing.T, opts ...Option) fixture {
	t.Helper()
	clock := &fixedClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	srv := New(append([]Option{WithClock(clock.now)}, opts...)...)
	url, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	srv.CreateRepo(owner, name, "main")
	return fixture{srv: srv, client: clientFor(t, url, ""), clock: clock, url: url}
}

// clientFor builds a go-github client; a non-empty token authenticates it.
func clientFor(t *testing.T, url, token string) *github.Client {
	t.Helper()
	c := github.NewClient(nil)
	if token != "" {
		c = c.WithAuthToken(token)
	}
	c, err := c.WithEnterpriseURLs(url+"/api/v3/", url+"/api/uploads/")
	require.NoError(t, err)
	return c
}

func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

func statusOf(t *testing.T, err error) int {
	t.Helper()
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	return er.Response.StatusCode
}

func (f fixture) createIssue(t *testing.T, title string, labels ...string) *github.Issue {
	t.Helper()
	req := &github.IssueRequest{Title: github.String(title)}
	if labels != nil {
		req.Labels = &labels
	}
	is, _, err := f.client.Issues.Create(ctx(t), owner, name, req)
	require.NoError(t, err)
	return is
}
