//go:build e2e

package democmd_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/pipeline"
)

// crashAt kills the process at the k-th write (non-GET) request: before,
// the request never reaches GitHub; after, GitHub applies it and the
// answer is lost. From then on nothing more is sent, as from a dead
// process (retries included).
type crashAt struct {
	k      int64
	after  bool
	writes atomic.Int64
	dead   atomic.Bool
}

func (c *crashAt) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.dead.Load() {
		return nil, fmt.Errorf("process crashed at write %d", c.k)
	}
	if req.Method == http.MethodGet || c.writes.Add(1) != c.k {
		return http.DefaultTransport.RoundTrip(req)
	}
	c.dead.Store(true)
	if c.after {
		if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	return nil, fmt.Errorf("injected crash at write %d (%s %s)", c.k, req.Method, req.URL.Path)
}

// domainReplay answers a domain-service request the real Go domain service
// has already answered with an identical request (same method, artifacts,
// params; request id and workspace path aside) from that answer, and sends
// every other request to the real service. The service is deterministic
// for identical inputs, so the crash matrix replays the clean run's
// toolchain work instead of repeating it (the toolchain is nearly all of a
// run's CPU), while any request a crashed pipeline asks differently still
// reaches the real service.
type domainReplay struct {
	mu      sync.Mutex
	answers map[string][]byte // canonical request → response body (status ok)
}

func (d *domainReplay) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key, reqID, ok := replayKey(r.URL.Path, body)
		if ok {
			d.mu.Lock()
			answer, found := d.answers[key]
			d.mu.Unlock()
			if found {
				if out, err := withRequestID(answer, reqID); err == nil {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(out)
					return
				}
			}
		}
		rec := httptest.NewRecorder()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(rec, r)
		var resp domain.Response
		if ok && rec.Code == http.StatusOK && json.Unmarshal(rec.Body.Bytes(), &resp) == nil && resp.Status == domain.StatusOK {
			d.mu.Lock()
			d.answers[key] = rec.Body.Bytes()
			d.mu.Unlock()
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// replayKey is the request with its per-run parts (request id, workspace
// path) removed, in canonical JSON.
func replayKey(path string, body []byte) (key, requestID string, ok bool) {
	var req domain.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return "", "", false
	}
	requestID = req.RequestID
	req.RequestID, req.Repository.Path = "", ""
	raw, err := json.Marshal(req)
	if err != nil {
		return "", "", false
	}
	return path + " " + string(raw), requestID, true
}

func withRequestID(answer []byte, id string) ([]byte, error) {
	var resp domain.Response
	if err := json.Unmarshal(answer, &resp); err != nil {
		return nil, err
	}
	resp.RequestID = id
	return json.Marshal(resp)
}

// pipelineState is what must come out the same however the run was
// interrupted.
type pipelineState struct {
	Labels   []string
	Keys     []string
	Pulls    []string
	Issues   int
	Stage    pipeline.Stage
	SWIs     []string
	HeadCode map[string]string
}

func capturePipeline(t *testing.T, r *democmd.DemoReport) pipelineState {
	t.Helper()
	repo := r.Repo.String()
	st := pipelineState{Stage: r.Snapshot.Stage}
	st.Labels = append(st.Labels, r.Sim.Labels(repo, r.Issue)...)
	sort.Strings(st.Labels)
	for _, c := range r.Sim.Comments(repo, r.Issue) {
		key, ok := audit.FindKey(c.Body)
		if !ok {
			key = "(unkeyed)"
		}
		if strings.HasPrefix(key, fmt.Sprintf("%d/step/", r.Issue)) {
			// Step records belong to the run that made them (one per step,
			// a crashed step's record may be missing); they are not state.
			continue
		}
		st.Keys = append(st.Keys, key) // duplicates would show as repeated keys
	}
	sort.Strings(st.Keys)
	for _, pr := range r.Sim.Pulls(repo) {
		st.Pulls = append(st.Pulls, fmt.Sprintf("%s→%s %s %s", pr.Head, pr.Base, pr.State, pr.Title))
	}
	sort.Strings(st.Pulls)
	for n := 1; ; n++ {
		if _, ok := r.Sim.Issue(repo, n); !ok {
			break
		}
		st.Issues++
	}
	for _, swi := range r.Snapshot.SubWorkItems {
		labels := append([]string(nil), r.Sim.Labels(repo, swi.Issue)...)
		sort.Strings(labels)
		st.SWIs = append(st.SWIs, fmt.Sprintf("%s #%d %s PR#%d %v", swi.ID, swi.Issue, swi.Status, swi.PR, labels))
	}
	last := r.Snapshot.SubWorkItems[len(r.Snapshot.SubWorkItems)-1]
	st.HeadCode = r.Sim.BranchFiles(repo, last.Branch)
	return st
}

// crashMatrix interrupts the real pipeline (real stages, and the real Go
// domain service's answers replayed from the clean run) at a spread of its
// total GitHub writes, before and after the write lands, then lets a new
// process carry on after the lock timeout, and finds exactly want, the
// state of the uninterrupted run: no duplicate comments, issues or PRs and
// no lock left.
func crashMatrix(t *testing.T, want pipelineState, total int64, replay *domainReplay) {
	t.Helper()
	require.Greater(t, total, int64(50))
	require.NotEmpty(t, replay.answers, "the clean run asked the real domain service")
	ctx := context.Background()
	const stride = 13
	for k := int64(3); k <= total; k += stride {
		after := (k/stride)%2 == 1
		name := fmt.Sprintf("crash before write %d", k)
		if after {
			name = fmt.Sprintf("crash after write %d", k)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel() // each run has its own simulator, workspace and socket
			// One clock for the simulator and the steps; the new process
			// starts after the lock timeout, as a cron run would.
			var offset atomic.Int64
			clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
			report, err := runCrashableDemo(t, io.Discard, &crashAt{k: k, after: after}, clock, replay)
			require.Error(t, err, "the injected crash stops the run")
			offset.Store(int64(31 * time.Minute))
			require.NoError(t, report.Resume(ctx, clock))
			assert.Equal(t, engine.OutcomeComplete, report.Final)
			got := capturePipeline(t, report)
			assert.Equal(t, want, got)
			assert.NotContains(t, got.Labels, pipeline.LabelProcessing, "no lock left behind")
			for _, key := range got.Keys {
				assert.False(t, strings.Contains(key, "/lock/"), "no lock claim left behind: %s", key)
			}
		})
	}
}

// runCrashableDemo runs the demo through tr, the crashing transport, with
// the domain service's answers recorded into (or replayed from) replay. A
// dead process does not retry: the crashing client sends each request
// once.
func runCrashableDemo(t *testing.T, out io.Writer, tr http.RoundTripper, clock func() time.Time, replay *domainReplay) (*democmd.DemoReport, error) {
	t.Helper()
	f := &factory.Factory{IO: factory.IOStreams{Out: out, ErrOut: out}, Getenv: func(string) string { return "" }}
	report, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30, Transport: tr, Clock: clock,
		Retry: github.RetryPolicy{MaxRetries: -1}, WrapDomain: replay.wrap, SimOptions: []githubsim.Option{githubsim.WithResponseLog()}})
	t.Cleanup(cleanup)
	return report, err
}
