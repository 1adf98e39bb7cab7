package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/metrics"
)

var testSecret = []byte("It's a Secret to Everybody")

// fakeRunner records jobs; when gate is set each run blocks until it is
// closed or the context ends.
type fakeRunner struct {
	mu      sync.Mutex
	jobs    []Job
	active  map[string]int
	overlap bool
	gate    chan struct{}
	started chan string
}

func (f *fakeRunner) Run(ctx context.Context, job Job) ([]engine.Result, error) {
	f.mu.Lock()
	if f.active == nil {
		f.active = map[string]int{}
	}
	f.active[job.key()]++
	if f.active[job.key()] > 1 {
		f.overlap = true
	}
	f.jobs = append(f.jobs, job)
	f.mu.Unlock()
	if f.started != nil {
		f.started <- job.key()
	}
	defer func() {
		f.mu.Lock()
		f.active[job.key()]--
		f.mu.Unlock()
	}()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return []engine.Result{{Issue: job.Issue, Stage: "intake", Outcome: engine.OutcomeAdvanced}}, nil
}

func (f *fakeRunner) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.jobs)
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

func deliver(t *testing.T, h http.Handler, event, delivery string, body []byte, sig string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(string(body)))
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("Content-Type", "application/json")
	if sig != "" {
		req.Header.Set("X-Hub-Signature-256", sig)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func newTestServer(t *testing.T, r Runner, mod func(*Options)) *Server {
	t.Helper()
	opts := Options{Secret: testSecret, Runner: r, Metrics: metrics.New(metrics.Options{})}
	if mod != nil {
		mod(&opts)
	}
	s, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	return s
}

func TestSignatureWithRealPayloads(t *testing.T) {
	r := &fakeRunner{}
	s := newTestServer(t, r, nil)
	// GitHub's documented example: secret "It's a Secret to Everybody",
	// payload "Hello, World!". The signature passes; the payload is then
	// refused as not an event.
	hello := deliver(t, s.Handler(), "issues", "d-sig-doc", []byte("Hello, World!"),
		"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
	assert.Equal(t, http.StatusBadRequest, hello.Code, hello.Body.String())
	body := fixture(t, "issues.labeled.json")
	good := Sign(testSecret, body)
	tests := []struct {
		name string
		sig  string
		body []byte
		want int
	}{
		{"valid", good, body, http.StatusAccepted},
		{"missing", "", body, http.StatusUnauthorized},
		{"sha1 style", "sha1=" + strings.TrimPrefix(good, "sha256="), body, http.StatusUnauthorized},
		{"not hex", "sha256=zz", body, http.StatusUnauthorized},
		{"other secret", Sign([]byte("guess"), body), body, http.StatusUnauthorized},
		{"tampered body", good, []byte(strings.Replace(string(body), `"number": 1`, `"number": 2`, 1)), http.StatusUnauthorized},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := deliver(t, s.Handler(), "issues", fmt.Sprint("d-sig-", i), tt.body, tt.sig)
			assert.Equal(t, tt.want, rec.Code, rec.Body.String())
		})
	}
}

func TestPreviousSecretIsAcceptedWhileRotating(t *testing.T) {
	old, next := []byte("old-secret"), []byte("new-secret")
	rotating := newTestServer(t, &fakeRunner{}, func(o *Options) { o.Secret, o.PreviousSecret = next, old })
	done := newTestServer(t, &fakeRunner{}, func(o *Options) { o.Secret = next })
	tests := []struct {
		name   string
		s      *Server
		secret []byte
		want   int
	}{
		{"new secret while rotating", rotating, next, http.StatusAccepted},
		{"old secret while rotating", rotating, old, http.StatusAccepted},
		{"another secret while rotating", rotating, []byte("guess"), http.StatusUnauthorized},
		{"old secret after the rotation", done, old, http.StatusUnauthorized},
		{"new secret after the rotation", done, next, http.StatusAccepted},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := issueEventBody(1, tt.name) // one event each, not replays of one
			rec := deliver(t, tt.s.Handler(), "issues", fmt.Sprint("d-rot-", i), body, Sign(tt.secret, body))
			assert.Equal(t, tt.want, rec.Code, rec.Body.String())
		})
	}
}

func TestEventsAreRoutedByType(t *testing.T) {
	r := &fakeRunner{}
	var changed []string
	s := newTestServer(t, r, func(o *Options) {
		o.Installations = hookFunc(func(action string, id int64) { changed = append(changed, fmt.Sprint(action, id)) })
	})
	tests := []struct {
		event, file string
		want        int
		body        string
	}{
		{"ping", "ping.json", http.StatusOK, "pong"},
		{"label", "label.created.json", http.StatusBadRequest, "not an event CogWorks handles"},
		{"installation", "installation.deleted.json", http.StatusOK, "ok"},
		{"issue_comment", "issue_comment.created.command.json", http.StatusAccepted, "queued"},
		{"pull_request", "pull_request.opened.json", http.StatusAccepted, "not a CogWorks branch"},
		{"issues", "issues.labeled.cogworks-run.json", http.StatusAccepted, "queued"},
		// GitHub's own examples: an issue labelled "bug" only concerns no
		// pipeline, and the payload says so without a GitHub request.
		{"issues", "issues.labeled.json", http.StatusAccepted, "ignored: issue #1 has no cogworks:run label"},
		// A comment that is no /cogworks command is never pipeline state,
		// even on a work item.
		{"issue_comment", "issue_comment.created.cogworks-run.json", http.StatusAccepted, "ignored: comment 492700400 on #1 is not a new /cogworks command by a person"},
	}
	for i, tt := range tests {
		body := fixture(t, tt.file)
		rec := deliver(t, s.Handler(), tt.event, fmt.Sprint("d-route-", i), body, Sign(testSecret, body))
		assert.Equal(t, tt.want, rec.Code, tt.event)
		assert.Contains(t, rec.Body.String(), tt.body, tt.event)
	}
	assert.Equal(t, []string{"deleted2"}, changed)
	require.Eventually(t, func() bool { return r.count() >= 1 }, 5*time.Second, 5*time.Millisecond)
	r.mu.Lock()
	first := r.jobs[0]
	r.mu.Unlock()
	assert.Equal(t, "Codertocat/Hello-World", first.Repo.String())
	assert.Equal(t, 1, first.Issue)
	assert.Equal(t, int64(1), first.Installation, "issue_comment.created.with-installation names installation 1")
	require.Len(t, first.Comments, 1)
	assert.Equal(t, "Codertocat", first.Comments[0].User)
}

type hookFunc func(action string, id int64)

func (h hookFunc) InstallationChanged(action string, id int64) { h(action, id) }

func TestBadPayloadIs400AndBotEventsAreIgnored(t *testing.T) {
	s := newTestServer(t, &fakeRunner{}, nil)
	body := []byte(`{"action":"opened"}`)
	rec := deliver(t, s.Handler(), "issues", "d1", body, Sign(testSecret, body))
	assert.Equal(t, http.StatusBadRequest, rec.Code)

	bot := []byte(`{"action":"labeled","issue":{"number":3},"repository":{"full_name":"a/b"},"sender":{"login":"cogworks[bot]","type":"Bot"}}`)
	rec = deliver(t, s.Handler(), "issues", "d2", bot, Sign(testSecret, bot))
	assert.Equal(t, http.StatusAccepted, rec.Code)
	assert.Contains(t, rec.Body.String(), "bot")
}

func issueBody(n int) []byte { return issueEventBody(n, "") }

// issueEventBody is an issues event for #n; distinct events for one issue
// differ in their payload (here the label's description, as GitHub's
// differ in updated_at), which is what tells them from replays.
func issueEventBody(n int, variant string) []byte {
	return []byte(fmt.Sprintf(`{"action":"labeled","issue":{"number":%d,"labels":[{"name":"cogworks:run","description":%q}]},"repository":{"full_name":"acme/widgets"},"installation":{"id":7},"sender":{"login":"alice","type":"User"}}`, n, variant))
}

func TestQueueCoalescesSerialisesAndSheds(t *testing.T) {
	r := &fakeRunner{gate: make(chan struct{}), started: make(chan string, 100)}
	s := newTestServer(t, r, func(o *Options) { o.QueueSize = 2; o.Workers = 2 })
	send := func(n int, id string) int {
		b := issueEventBody(n, id)
		return deliver(t, s.Handler(), "issues", id, b, Sign(testSecret, b)).Code
	}
	require.Equal(t, http.StatusAccepted, send(1, "a"))
	require.Equal(t, "acme/widgets#1", <-r.started)
	// #1 runs: more events for it are folded into one re-run.
	assert.Equal(t, http.StatusAccepted, send(1, "b"))
	assert.Equal(t, http.StatusAccepted, send(1, "c"))
	assert.Equal(t, http.StatusOK, send(1, "c"), "a redelivery is a no-op")
	require.Equal(t, http.StatusAccepted, send(2, "d"))
	require.Equal(t, "acme/widgets#2", <-r.started)
	// Both workers busy: two items fill the queue, a third is shed.
	assert.Equal(t, http.StatusAccepted, send(3, "e"))
	assert.Equal(t, http.StatusAccepted, send(3, "f"), "coalesced with the queued #3")
	assert.Equal(t, http.StatusAccepted, send(4, "g"))
	assert.Equal(t, 2, s.QueueDepth())
	assert.Equal(t, http.StatusServiceUnavailable, send(5, "h"))
	refused := s.Refused()
	require.Len(t, refused, 1, "the refused delivery is recorded for recovery")
	assert.Equal(t, "h", refused[0].Delivery)
	assert.Equal(t, "issues", refused[0].Event)
	assert.Equal(t, int64(7), refused[0].Installation)
	assert.Equal(t, "acme/widgets", refused[0].Repo.String())
	assert.Equal(t, 5, refused[0].Issue)
	assert.Equal(t, "queue_full", refused[0].Reason)
	close(r.gate)
	require.Eventually(t, func() bool { return r.count() == 5 }, 5*time.Second, 5*time.Millisecond,
		"#1 twice (the run plus one coalesced re-run), #2, #3 and #4 once")
	assert.Equal(t, http.StatusAccepted, send(5, "h"), "a shed delivery is accepted when redelivered")
	require.Eventually(t, func() bool { return r.count() == 6 }, 5*time.Second, 5*time.Millisecond)
	r.mu.Lock()
	defer r.mu.Unlock()
	assert.False(t, r.overlap, "one item is never stepped twice at once")
}

func TestShutdownDrainsThenCancels(t *testing.T) {
	r := &fakeRunner{gate: make(chan struct{}), started: make(chan string, 10)}
	s := newTestServer(t, r, func(o *Options) { o.Workers = 1 })
	b := issueBody(1)
	require.Equal(t, http.StatusAccepted, deliver(t, s.Handler(), "issues", "x", b, Sign(testSecret, b)).Code)
	<-r.started
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := s.Shutdown(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded, "the blocked step is cancelled after the grace period")
	b2 := issueBody(2)
	assert.Equal(t, http.StatusServiceUnavailable, deliver(t, s.Handler(), "issues", "y", b2, Sign(testSecret, b2)).Code)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
}

func TestHealthReadinessAndMetrics(t *testing.T) {
	ready := fmt.Errorf("App key rejected")
	s := newTestServer(t, &fakeRunner{}, func(o *Options) {
		o.Ready = func(context.Context) error { return ready }
	})
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	assert.Equal(t, http.StatusOK, get("/healthz").Code)
	rec := get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Contains(t, rec.Body.String(), "App key rejected")
	ready = nil
	assert.Equal(t, http.StatusOK, get("/readyz").Code)
	deliver(t, s.Handler(), "issues", "z", []byte("{}"), "sha256=00")
	m := get("/metrics")
	assert.Equal(t, http.StatusOK, m.Code)
	assert.Contains(t, m.Body.String(), `cogworks_serve_rejected_deliveries_total{reason="signature"} 1`)

	_, err := New(Options{Runner: &fakeRunner{}})
	require.Error(t, err, "a secret is required")
}
