package metrics

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/cogworks/cogworks/internal/engine"
)

// Metrics are the instruments of one process.
type Metrics struct {
	// Registry holds every instrument below; expose or push it.
	Registry *prometheus.Registry

	steps          *prometheus.CounterVec
	stepDuration   *prometheus.HistogramVec
	lockBackoffs   prometheus.Counter
	gateWaits      *prometheus.CounterVec
	githubRequests *prometheus.CounterVec
	rateRemaining  *prometheus.GaugeVec
	llmCalls       *prometheus.CounterVec
	llmTokens      *prometheus.CounterVec
	llmCost        *prometheus.CounterVec
	queueDepth     prometheus.Gauge
	deliveries     *prometheus.CounterVec
	rejected       *prometheus.CounterVec
}

// Options configures New.
type Options struct {
	// ProcessCollectors adds the Go runtime and process collectors (for a
	// long-running server; a cron run's textfile does not want them).
	ProcessCollectors bool
}

// New registers every instrument on a fresh registry.
func New(opts Options) *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		Registry: reg,
		steps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_steps_total", Help: "Step function invocations by stage and outcome.",
		}, []string{"stage", "outcome"}),
		stepDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cogworks_step_duration_seconds", Help: "Wall time of one step, by stage.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"stage"}),
		lockBackoffs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cogworks_lock_contention_total", Help: "Steps that backed off because another run held or won the lock.",
		}),
		gateWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_gate_waits_total", Help: "Steps that ended waiting at a human gate, by stage.",
		}, []string{"stage"}),
		githubRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_github_requests_total", Help: "GitHub API requests on the wire (every attempt), by method and status.",
		}, []string{"method", "status"}),
		rateRemaining: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cogworks_github_rate_limit_remaining", Help: "X-RateLimit-Remaining of the last GitHub answer that carried it, by X-RateLimit-Resource (core, search, graphql…).",
		}, []string{"resource"}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_llm_calls_total", Help: "Answered LLM provider calls, by stage and model.",
		}, []string{"stage", "model"}),
		llmTokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_llm_tokens_total", Help: "LLM tokens, by stage, model and direction (input|output).",
		}, []string{"stage", "model", "direction"}),
		llmCost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_llm_cost_dollars_total", Help: "Estimated LLM spend in USD, by stage and model.",
		}, []string{"stage", "model"}),
		queueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cogworks_serve_queue_depth", Help: "Work items waiting in the serve queue.",
		}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_serve_deliveries_total", Help: "Webhook deliveries, by event and result.",
		}, []string{"event", "result"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cogworks_serve_rejected_deliveries_total", Help: "Webhook deliveries refused, by reason (event|signature|content_type|too_large|busy|slow|bad_payload|replay|queue_full|draining).",
		}, []string{"reason"}),
	}
	reg.MustRegister(m.steps, m.stepDuration, m.lockBackoffs, m.gateWaits, m.githubRequests, m.rateRemaining,
		m.llmCalls, m.llmTokens, m.llmCost, m.queueDepth, m.deliveries, m.rejected)
	if opts.ProcessCollectors {
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	return m
}

// ObserveStep records one step's result.
func (m *Metrics) ObserveStep(r engine.Result) {
	if m == nil {
		return
	}
	stage := r.Stage
	if stage == "" {
		stage = "none"
	}
	outcome := string(r.Outcome)
	if outcome == "" {
		outcome = "error"
	}
	m.steps.WithLabelValues(stage, outcome).Inc()
	m.stepDuration.WithLabelValues(stage).Observe(float64(r.DurationMS) / 1000)
	switch r.Outcome {
	case engine.OutcomeBackedOff:
		m.lockBackoffs.Inc()
	case engine.OutcomeWaiting:
		m.gateWaits.WithLabelValues(stage).Inc()
	}
}

// ObserveSteps records several results.
func (m *Metrics) ObserveSteps(rs []engine.Result) {
	for _, r := range rs {
		m.ObserveStep(r)
	}
}

// LLMCall is one answered LLM provider call. The package takes its own
// type rather than the LLM gateway's, so that linking the metrics does
// not link the providers' SDKs (cli adapts one to the other).
type LLMCall struct {
	Stage        string
	Model        string
	InputTokens  int
	OutputTokens int
	CostUSD      float64
}

// ObserveLLMCall records one answered provider call by stage and model.
func (m *Metrics) ObserveLLMCall(c LLMCall) {
	if m == nil {
		return
	}
	stage, model := c.Stage, c.Model
	if stage == "" {
		stage = "none"
	}
	if model == "" {
		model = "default"
	}
	m.llmCalls.WithLabelValues(stage, model).Inc()
	m.llmTokens.WithLabelValues(stage, model, "input").Add(float64(c.InputTokens))
	m.llmTokens.WithLabelValues(stage, model, "output").Add(float64(c.OutputTokens))
	m.llmCost.WithLabelValues(stage, model).Add(c.CostUSD)
}

// githubRequest records one HTTP attempt and, when the answer carried
// them, the rate-limit headers of its resource ("" counts as core).
func (m *Metrics) githubRequest(method string, status int, err error, h http.Header) {
	code := "error"
	if err == nil {
		code = strconv.Itoa(status)
	}
	m.githubRequests.WithLabelValues(method, code).Inc()
	if h == nil {
		return
	}
	if n, perr := strconv.Atoi(h.Get("X-RateLimit-Remaining")); perr == nil {
		resource := h.Get("X-RateLimit-Resource")
		if resource == "" {
			resource = "core"
		}
		m.rateRemaining.WithLabelValues(resource).Set(float64(n))
	}
}

// SetQueueDepth sets the serve queue depth gauge.
func (m *Metrics) SetQueueDepth(n int) {
	if m == nil {
		return
	}
	m.queueDepth.Set(float64(n))
}

// Delivery counts a webhook delivery by event and result (queued: a new
// work item; merged: into a waiting or running item; duplicate, ignored,
// pong). Callers pass only event names they handle,
// so the series stay bounded.
func (m *Metrics) Delivery(event, result string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(event, result).Inc()
}

// Rejected counts a refused webhook delivery.
func (m *Metrics) Rejected(reason string) {
	if m == nil {
		return
	}
	m.rejected.WithLabelValues(reason).Inc()
}
