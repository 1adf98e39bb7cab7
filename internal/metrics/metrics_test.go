package metrics

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
)

func TestObserveStepCountsOutcomesContentionAndGateWaits(t *testing.T) {
	m := New(Options{})
	m.ObserveSteps([]engine.Result{
		{Stage: "intake", Outcome: engine.OutcomeAdvanced, DurationMS: 120},
		{Stage: "intake", Outcome: engine.OutcomeAdvanced, DurationMS: 80},
		{Stage: "architecture", Outcome: engine.OutcomeWaiting, DurationMS: 10},
		{Stage: "intake", Outcome: engine.OutcomeBackedOff, DurationMS: 5},
		{Outcome: ""}, // an error before any stage was known
	})
	assert.InDelta(t, 2, testutil.ToFloat64(m.steps.WithLabelValues("intake", "advanced")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.steps.WithLabelValues("none", "error")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.lockBackoffs), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.gateWaits.WithLabelValues("architecture")), 0)
	assert.Equal(t, 3, testutil.CollectAndCount(m.stepDuration))

	var nilM *Metrics
	assert.NotPanics(t, func() {
		nilM.ObserveStep(engine.Result{})
		nilM.ObserveLLMCall(LLMCall{Stage: "x"})
		nilM.SetQueueDepth(3)
		nilM.Delivery("issues", "queued")
		nilM.Rejected("signature")
	})
}

func TestTransportCountsEveryAttemptAndTracksRateLimit(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("X-RateLimit-Remaining", map[bool]string{true: "4999", false: "4998"}[calls == 1])
		if r.URL.Path == "/search/issues" {
			w.Header().Set("X-RateLimit-Remaining", "29")
			w.Header().Set("X-RateLimit-Resource", "search")
		}
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			return
		}
		if calls == 2 {
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	m := New(Options{})
	client := &http.Client{Transport: m.Transport(nil)}
	for _, call := range []struct{ method, path string }{{http.MethodGet, "/"}, {http.MethodGet, "/"}, {http.MethodPost, "/"}, {http.MethodGet, "/search/issues"}} {
		req, err := http.NewRequest(call.method, srv.URL+call.path, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	_, err := client.Get("http://127.0.0.1:1/unreachable")
	require.Error(t, err)

	assert.InDelta(t, 2, testutil.ToFloat64(m.githubRequests.WithLabelValues("GET", "200")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.githubRequests.WithLabelValues("GET", "404")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.githubRequests.WithLabelValues("POST", "201")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.githubRequests.WithLabelValues("GET", "error")), 0)
	assert.InDelta(t, 4998, testutil.ToFloat64(m.rateRemaining.WithLabelValues("core")), 0, "answers without a resource are core")
	assert.InDelta(t, 29, testutil.ToFloat64(m.rateRemaining.WithLabelValues("search")), 0, "search has its own window")
}

func TestObserveLLMCallCountsByStageAndModel(t *testing.T) {
	m := New(Options{})
	m.ObserveLLMCall(LLMCall{Stage: "intake", Model: "m1", InputTokens: 100, OutputTokens: 20, CostUSD: 0.5})
	m.ObserveLLMCall(LLMCall{Stage: "intake", Model: "m1", InputTokens: 50, OutputTokens: 10, CostUSD: 0.25})
	m.ObserveLLMCall(LLMCall{}) // neither stage nor model known

	assert.InDelta(t, 2, testutil.ToFloat64(m.llmCalls.WithLabelValues("intake", "m1")), 0)
	assert.InDelta(t, 150, testutil.ToFloat64(m.llmTokens.WithLabelValues("intake", "m1", "input")), 0)
	assert.InDelta(t, 30, testutil.ToFloat64(m.llmTokens.WithLabelValues("intake", "m1", "output")), 0)
	assert.InDelta(t, 0.75, testutil.ToFloat64(m.llmCost.WithLabelValues("intake", "m1")), 1e-9)
	assert.InDelta(t, 1, testutil.ToFloat64(m.llmCalls.WithLabelValues("none", "default")), 0)
}

func TestWriteFileIsParseableTextAndReplacesAtomically(t *testing.T) {
	m := New(Options{})
	m.ObserveStep(engine.Result{Stage: "intake", Outcome: engine.OutcomeAdvanced, DurationMS: 100})
	dir := t.TempDir()
	path := filepath.Join(dir, "cogworks.prom")
	require.NoError(t, os.WriteFile(path, []byte("stale"), 0o600))
	require.NoError(t, m.WriteFile(path))

	families := parseText(t, mustRead(t, path))
	require.Contains(t, families, "cogworks_steps_total")
	assert.InDelta(t, 1, families["cogworks_steps_total"].GetMetric()[0].GetCounter().GetValue(), 0)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "the textfile collector must be able to read it")

	require.Error(t, m.WriteFile(filepath.Join(dir, "missing", "x.prom")))
}

func TestPushPutsTheRegistryToThePushgateway(t *testing.T) {
	var (
		mu     sync.Mutex
		method string
		path   string
		body   string
	)
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		method, path, body = r.Method, r.URL.Path, string(b)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer gw.Close()
	m := New(Options{})
	m.ObserveStep(engine.Result{Stage: "review", Outcome: engine.OutcomeWaiting})
	require.NoError(t, m.Push(context.Background(), gw.URL, "cogworks", map[string]string{"shard": "0"}))
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, http.MethodPut, method)
	assert.Equal(t, "/metrics/job/cogworks/shard/0", path)
	assert.NotEmpty(t, body)

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer bad.Close()
	err := m.Push(context.Background(), bad.URL, "cogworks", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), bad.URL)
}

func TestHandlerServesExposition(t *testing.T) {
	m := New(Options{ProcessCollectors: true})
	m.SetQueueDepth(3)
	m.Rejected("queue_full")
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	families := parseText(t, rec.Body.String())
	assert.InDelta(t, 3, families["cogworks_serve_queue_depth"].GetMetric()[0].GetGauge().GetValue(), 0)
	assert.Contains(t, families, "go_goroutines")
	assert.Contains(t, families, "cogworks_serve_rejected_deliveries_total")
}

func parseText(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	require.NoError(t, err)
	return families
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}
