// Package testenv builds test fixtures shared by package tests: a GitHub
// simulator with a go-github client pointed at it, as CogWorks runs in
// production but in memory.
package testenv

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
)

// Repo is the repository every fixture seeds.
var Repo = github.Repo{Owner: "acme", Name: "widgets"}

// Token and Bot are the credentials the client uses and the login the
// simulator maps them to.
const (
	Token = "ghs_testtoken"
	Bot   = "cogworks[bot]"
)

// Clock is a settable test clock, safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock starts at a fixed instant.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}
}

// Now returns the current test time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Env is a running simulator and a client for it.
type Env struct {
	Sim    *githubsim.Server
	Client *github.Client
	Clock  *Clock
	URL    string
}

// New starts a simulator with the fixture repository (default branch main,
// a maintainer "alice" and a read-only "mallory") and a client that does
// not retry, so injected faults surface at once.
// Options (e.g. githubsim.WithEnterprise) configure the simulator further.
func New(t testing.TB, opts ...githubsim.Option) *Env {
	t.Helper()
	clock := NewClock()
	traffic := &trafficLog{}
	sim := githubsim.New(append([]githubsim.Option{githubsim.WithClock(clock.Now), githubsim.WithObserver(traffic.add)}, opts...)...)
	url, err := sim.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatalf("start the GitHub simulator: %v", err)
	}
	t.Cleanup(sim.Close)
	t.Cleanup(func() { checkConformance(t, traffic.all()) })
	sim.AddToken(Token, Bot)
	sim.CreateRepo(Repo.Owner, Repo.Name, "main")
	sim.SeedFiles(Repo.String(), "main", map[string]string{"README.md": "# widgets\n", "go.mod": "module example.com/widgets\n\ngo 1.22\n"})
	sim.AddCollaborator(Repo.String(), "alice", "maintain")
	sim.AddCollaborator(Repo.String(), "mallory", "read")
	client, err := github.New(context.Background(), github.Options{
		BaseURL: url + "/api/v3/",
		Token:   Token,
		Retry:   github.RetryPolicy{MaxRetries: -1},
		Sleep:   func(context.Context, time.Duration) error { return nil },
	})
	require.NoError(t, err)
	return &Env{Sim: sim, Client: client, Clock: clock, URL: url}
}

// trafficLog keeps every request a fixture's simulator served, whatever
// the test does to the simulator's own log.
type trafficLog struct {
	mu   sync.Mutex
	logs []githubsim.RequestLog
}

func (l *trafficLog) add(r githubsim.RequestLog) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.logs = append(l.logs, r)
}

func (l *trafficLog) all() []githubsim.RequestLog {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]githubsim.RequestLog(nil), l.logs...)
}

// checkConformance checks every request the test sent to the simulator,
// and with the e2e tag every answer, against GitHub's OpenAPI description
// (package openapi): the tests that use this fixture are the realistic
// traffic docs/github-conformance.md speaks of.
func checkConformance(t testing.TB, logs []githubsim.RequestLog) {
	t.Helper()
	d, err := openapi.Default()
	if err != nil {
		t.Errorf("load GitHub's OpenAPI description: %v", err)
		return
	}
	check := d.CheckRequests
	if e2e.Enabled {
		// The simulator's answers too: CI's run (the e2e tag) checks
		// everything; the fast default suite only what CogWorks sends.
		check = d.CheckLog
	}
	if err := check(logs); err != nil {
		t.Errorf("GitHub traffic that GitHub's OpenAPI description does not allow:\n%v", err)
	}
}

// NewClient returns another client for the same simulator whose requests
// go through transport (nil: the default), e.g. to inject crashes.
func (e *Env) NewClient(t testing.TB, transport http.RoundTripper) *github.Client {
	t.Helper()
	client, err := github.New(context.Background(), github.Options{
		BaseURL:   e.URL + "/api/v3/",
		Token:     Token,
		Transport: transport,
		Retry:     github.RetryPolicy{MaxRetries: -1},
		Sleep:     func(context.Context, time.Duration) error { return nil },
		CacheSize: -1,
	})
	require.NoError(t, err)
	return client
}

// ClientAs returns a client that acts on the simulator as login, as a
// person with their own token would (e.g. the read-only "mallory").
func (e *Env) ClientAs(t testing.TB, login string) *github.Client {
	t.Helper()
	token := "ghp_" + strings.Repeat("x", 8) + login
	e.Sim.AddToken(token, login)
	client, err := github.New(context.Background(), github.Options{
		BaseURL:   e.URL + "/api/v3/",
		Token:     token,
		Retry:     github.RetryPolicy{MaxRetries: -1},
		Sleep:     func(context.Context, time.Duration) error { return nil },
		CacheSize: -1,
	})
	require.NoError(t, err)
	return client
}

// ActionsPermissions is the permissions: block the documented workflow
// grants its GITHUB_TOKEN.
func ActionsPermissions() map[string]string {
	return map[string]string{"contents": "write", "issues": "write", "pull-requests": "write"}
}

// ActionsClient returns a client holding a workflow's GITHUB_TOKEN for the
// fixture repository with permissions (see ActionsPermissions): it acts as
// github-actions[bot] and meets every refusal GitHub reserves for Actions.
func (e *Env) ActionsClient(t testing.TB, permissions map[string]string) *github.Client {
	t.Helper()
	token := "ghs_actions" + strings.Repeat("0", 8)
	e.Sim.AddActionsToken(token, Repo.String(), permissions)
	client, err := github.New(context.Background(), github.Options{
		BaseURL:   e.URL + "/api/v3/",
		Token:     token,
		Retry:     github.RetryPolicy{MaxRetries: -1},
		Sleep:     func(context.Context, time.Duration) error { return nil },
		CacheSize: -1,
	})
	require.NoError(t, err)
	return client
}
