//go:build e2e

package serve_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/server"
)

// stepLog is a Runner that records when each issue's steps start; a step
// costs stepCost, as a quick real step's GitHub round trips would.
type stepLog struct {
	cost time.Duration
	// hold, when not nil, keeps every step waiting until it is closed, so
	// the pending set fills during the burst however fast the machine is.
	hold   <-chan struct{}
	mu     sync.Mutex
	starts map[int][]time.Time
	steps  int
}

func (s *stepLog) Run(ctx context.Context, job server.Job) ([]engine.Result, error) {
	s.mu.Lock()
	s.starts[job.Issue] = append(s.starts[job.Issue], time.Now())
	s.steps++
	s.mu.Unlock()
	if s.hold != nil {
		select {
		case <-s.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case <-time.After(s.cost):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return []engine.Result{{Issue: job.Issue, Stage: "intake", Outcome: engine.OutcomeAdvanced}}, nil
}

// acceptLog wraps the webhook handler and records, per issue, when the
// last delivery that was accepted (202) arrived. A step that starts after
// that instant saw the trigger: the delivery was accepted after it, and
// the work set runs an item after every delivery it accepts.
type acceptLog struct {
	next http.Handler
	mu   sync.Mutex
	last map[int]time.Time
}

func (a *acceptLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec := &statusWriter{ResponseWriter: w}
	a.next.ServeHTTP(rec, r)
	var p struct {
		Issue struct{ Number int } `json:"issue"`
	}
	if rec.status == http.StatusAccepted && json.Unmarshal(body, &p) == nil {
		a.mu.Lock()
		if arrived.After(a.last[p.Issue.Number]) {
			a.last[p.Issue.Number] = arrived
		}
		a.mu.Unlock()
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

// burstFigures are what TestServeBurstLosesNoTrigger measures.
type burstFigures struct {
	accepted, merged, refused, redelivered, steps int
	p50, p99                                      time.Duration
	elapsed                                       time.Duration
}

// runBurst sends deliveries deliveries for issues issues through the
// simulator's App webhook (signed, GitHub's headers, no retry) to a serve
// with 4 workers and a pending set of queueSize items, with recovery
// from the App's delivery log wired as `cogworks serve` wires it, and
// waits (bounded) until every issue was stepped after its last accepted
// delivery and no delivery stays failed. With hold, the steps wait until
// the whole burst was sent: on a loaded machine the sender can be slower
// than 4 workers, and the pending set would never fill.
func runBurst(t *testing.T, deliveries, issues, queueSize int, hold bool) burstFigures {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	sim := githubsim.New()
	simURL, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.AddApp(testAppID, "cogworks", "cogworks[bot]", &key.PublicKey)
	sim.AddInstallation(testAppID, testInstallation)

	steps := &stepLog{cost: 2 * time.Millisecond, starts: map[int][]time.Time{}}
	release := make(chan struct{})
	if hold {
		steps.hold = release
	}
	m := metrics.New(metrics.Options{})
	kick := make(chan struct{}, 1)
	srv, err := server.New(server.Options{Secret: []byte(testWebhookKey), Runner: steps, QueueSize: queueSize, Workers: 4, Metrics: m,
		OnRefused: func() {
			select {
			case kick <- struct{}{}:
			default:
			}
		}})
	require.NoError(t, err)
	accepts := &acceptLog{next: srv.Handler(), last: map[int]time.Time{}}
	httpSrv := srv.HTTPServer()
	httpSrv.Handler = accepts
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = httpSrv.Serve(srv.Listener(ln)) }()
	sim.SetAppWebhook(testAppID, "http://"+ln.Addr().String()+"/webhook", []byte(testWebhookKey))

	apps, err := github.NewAppClients(github.Options{BaseURL: simURL + "/api/v3/",
		App: &github.AppAuth{AppID: testAppID, PrivateKey: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})}})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	opts := &serve.ServeOptions{QueueSize: queueSize, RedeliverInterval: 100 * time.Millisecond, RedeliverWindow: time.Hour}
	stopped := serve.StartRecovery(ctx, serve.Recovery{Deliveries: serve.HookLog{Apps: apps}, Server: srv, Kick: kick}, opts)
	t.Cleanup(func() {
		cancel()
		stopped()
		grace, done := context.WithTimeout(context.Background(), 5*time.Second)
		defer done()
		assert.NoError(t, srv.Shutdown(grace), "SIGTERM's drain finishes within the grace period")
		assert.NoError(t, httpSrv.Shutdown(grace))
	})

	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var answers []time.Duration
	var figures burstFigures
	for range 32 { // GitHub sends deliveries concurrently
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				n := i%issues + 1
				body := fmt.Appendf(nil, `{"action":"labeled","issue":{"number":%d,"updated_at":"2026-11-27T12:00:%02d.%04dZ","labels":[{"name":"cogworks:run"}]},"label":{"name":"cogworks:run"},"repository":{"full_name":"acme/vehicle"},"installation":{"id":%d},"sender":{"login":"alice","type":"User"}}`,
					n, i%60, i, testInstallation)
				at, err := sim.DeliverAppEvent(testAppID, "issues", "labeled", testInstallation, body)
				assert.NoError(t, err)
				mu.Lock()
				answers = append(answers, at.Duration)
				if at.StatusCode == http.StatusServiceUnavailable {
					figures.refused++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range deliveries {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	close(release)

	lost := func() []int {
		accepts.mu.Lock()
		defer accepts.mu.Unlock()
		steps.mu.Lock()
		defer steps.mu.Unlock()
		var out []int
		for n := 1; n <= issues; n++ {
			last, ok := accepts.last[n]
			if !ok || !slices.ContainsFunc(steps.starts[n], func(s time.Time) bool { return s.After(last) }) {
				out = append(out, n)
			}
		}
		return out
	}
	failing := func() int {
		ok := map[string]bool{}
		all := map[string]bool{}
		for _, at := range sim.HookAttempts(testAppID) {
			all[at.GUID] = true
			ok[at.GUID] = ok[at.GUID] || at.Status == "OK"
		}
		return len(all) - len(ok) + countFalse(ok)
	}
	// Bounded: a lost trigger fails here, after at most 20 s.
	require.Eventually(t, func() bool { return len(lost()) == 0 && failing() == 0 && srv.Idle() }, 20*time.Second, 20*time.Millisecond,
		"issues never stepped after their last accepted delivery: %v", lost())
	figures.elapsed = time.Since(start)

	slices.Sort(answers)
	figures.p50 = answers[len(answers)/2]
	figures.p99 = answers[len(answers)*99/100]
	for _, at := range sim.HookAttempts(testAppID) {
		if at.Redelivery {
			figures.redelivered++
		}
	}
	figures.merged = int(counterValue(t, m, "cogworks_serve_deliveries_total", map[string]string{"result": "merged"}))
	figures.accepted = figures.merged + int(counterValue(t, m, "cogworks_serve_deliveries_total", map[string]string{"result": "queued"}))
	steps.mu.Lock()
	figures.steps = steps.steps
	steps.mu.Unlock()
	return figures
}

func countFalse(m map[string]bool) int {
	n := 0
	for _, v := range m {
		if !v {
			n++
		}
	}
	return n
}

// TestServeBurstLosesNoTrigger is the load test of issue 29: 2,000
// signed deliveries for 200 issues, over loopback, to a serve with 4
// workers. With today's --queue-size 100 (fewer slots than issues) the
// refused deliveries come back through the App's delivery log; with the
// default 1000 items the burst fits. Either way every issue is stepped
// after its last delivery. It takes about 2 s, hence the e2e tag.
// COGWORKS_LOAD_REPORT=1 prints the figures (benchmarks/README.md).
func TestServeBurstLosesNoTrigger(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	for _, tt := range []struct {
		name        string
		queueSize   int
		wantRefused bool
	}{
		{"queue of 100 items: refusals recovered from the delivery log", 100, true},
		{"default queue of 1000 items: the burst fits", 1000, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := runBurst(t, 2000, 200, tt.queueSize, tt.wantRefused)
			if tt.wantRefused {
				assert.Positive(t, f.refused, "200 issues do not fit 100 slots")
				assert.GreaterOrEqual(t, f.redelivered, f.refused, "every refused delivery was redelivered")
			} else {
				assert.Zero(t, f.refused)
			}
			assert.Equal(t, 2000, f.accepted-f.redelivered+f.refused, "each delivery was accepted once, or refused and redelivered")
			if os.Getenv("COGWORKS_LOAD_REPORT") != "" {
				t.Logf("queue %d: accepted %d (merged %d), refused %d, redelivered %d, steps %d, answer p50 %s p99 %s, all stepped after %s; test process peak RSS %s",
					tt.queueSize, f.accepted, f.merged, f.refused, f.redelivered, f.steps, f.p50, f.p99, f.elapsed.Round(time.Millisecond), peakRSS())
			}
		})
	}
}

// peakRSS is the test process's peak resident set (VmHWM: simulator,
// serve and senders together), or "?" off Linux.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
