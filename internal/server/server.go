package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/metrics"
)

// Runner steps one work item (engine.Run with the item's repository
// configuration). It must be safe for concurrent use on different items.
type Runner interface {
	Run(ctx context.Context, job Job) ([]engine.Result, error)
}

// InstallationHook is told about installation events (e.g. to drop a
// cached client when the App is uninstalled). Optional.
type InstallationHook interface {
	InstallationChanged(action string, id int64)
}

// Options configure a Server.
type Options struct {
	// Secret is the webhook secret (COGWORKS_WEBHOOK_SECRET); required.
	Secret []byte
	// PreviousSecret (COGWORKS_WEBHOOK_SECRET_PREVIOUS), when set, is
	// accepted too, so that the App's secret can be rotated without
	// refusing the deliveries GitHub signed with the old one meanwhile.
	PreviousSecret []byte
	Runner         Runner
	// Ready reports whether the server can work (App key loads, GitHub
	// answers); nil means always ready.
	Ready func(ctx context.Context) error
	// Installations is optional.
	Installations InstallationHook
	// QueueSize bounds the work items waiting (default 1000): items, not
	// deliveries, since deliveries for a waiting or running item merge
	// into it. Workers is how many items are stepped at once (default 4).
	QueueSize, Workers int
	// Refusals bounds how many refused deliveries are remembered for
	// Refused (default 10000).
	Refusals int
	// OnRefused, when set, is called (under the server's lock: it must not
	// block) each time a new item is refused because the set is full, so
	// that recovery can start early.
	OnRefused func()
	// Dedupe is how many delivery ids are remembered (default 10000).
	Dedupe  int
	Metrics *metrics.Metrics
	Logger  *slog.Logger
	// MaxBody bounds a delivery's size (default 25 MiB, GitHub's cap).
	MaxBody int64
	// MaxInFlight bounds the body bytes being read at once, across all
	// connections (default 2×MaxBody; never below MaxBody). A delivery is
	// reserved its Content-Length (MaxBody when chunked) before a byte is
	// read, so slow uploads cannot make the process buffer more.
	MaxInFlight int64
	// BodyWait is how long a delivery waits for in-flight budget before
	// it gets 503 (default 2s).
	BodyWait time.Duration
	// MinBodyRate (bytes/s, default 256 KiB/s) and BodyGrace (default 2s)
	// pace a body: a client that has not sent BodyGrace plus one second
	// per MinBodyRate bytes gets 408 and frees its budget.
	MinBodyRate int64
	BodyGrace   time.Duration
	// ReplayWindow is how long the sha256 of an accepted body is
	// remembered: the same body under another delivery id within it is
	// dropped (default 1h). At most Dedupe bodies are remembered.
	ReplayWindow time.Duration
	// MaxConns bounds the open connections of Listener (default 256).
	MaxConns int
}

// Server is the webhook receiver and its work queue.
type Server struct {
	opts Options
	log  *slog.Logger
	mux  *http.ServeMux

	mu       sync.Mutex
	draining bool
	work     *workSet
	refused  *refusals
	accepted *deliveries
	wake     chan struct{}

	inflight *semaphore.Weighted // body bytes being read

	workCtx    context.Context
	cancelWork context.CancelFunc
	wg         sync.WaitGroup
}

// New validates opts and starts the workers.
func New(opts Options) (*Server, error) {
	if len(opts.Secret) == 0 {
		return nil, errors.New("server: the webhook secret is empty (set COGWORKS_WEBHOOK_SECRET)")
	}
	if opts.Runner == nil {
		return nil, errors.New("server: Runner is nil")
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 1000
	}
	if opts.Refusals <= 0 {
		opts.Refusals = 10000
	}
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Dedupe <= 0 {
		opts.Dedupe = 10000
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = 25 << 20
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 2 * opts.MaxBody
	}
	// A delivery reserves up to MaxBody; a smaller budget could never
	// admit one.
	opts.MaxInFlight = max(opts.MaxInFlight, opts.MaxBody)
	if opts.BodyWait <= 0 {
		opts.BodyWait = 2 * time.Second
	}
	if opts.MinBodyRate <= 0 {
		opts.MinBodyRate = 256 << 10
	}
	if opts.BodyGrace <= 0 {
		opts.BodyGrace = 2 * time.Second
	}
	if opts.ReplayWindow <= 0 {
		opts.ReplayWindow = time.Hour
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 256
	}
	accepted, err := newDeliveries(opts.Dedupe, opts.ReplayWindow)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts: opts, log: log, mux: http.NewServeMux(),
		work: newWorkSet(opts.QueueSize), refused: newRefusals(opts.Refusals),
		accepted: accepted, wake: make(chan struct{}, 1), inflight: semaphore.NewWeighted(opts.MaxInFlight),
	}
	s.workCtx, s.cancelWork = context.WithCancel(context.Background())
	s.mux.HandleFunc("POST /webhook", s.handleWebhook)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusOK, "ok") })
	s.mux.HandleFunc("GET /readyz", s.handleReady)
	if opts.Metrics != nil {
		s.mux.Handle("GET /metrics", opts.Metrics.Handler())
	}
	for range opts.Workers {
		s.wg.Add(1)
		go s.worker()
	}
	return s, nil
}

// Handler serves POST /webhook, /healthz, /readyz and /metrics.
func (s *Server) Handler() http.Handler { return s.mux }

func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, msg+"\n")
}

// Sign returns the X-Hub-Signature-256 value for body (for tests and
// local tooling).
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// enqueue offers job to the work set: merged into its item when the item
// waits or runs, a new item while the set has room. It returns the HTTP
// status and a result word; a refusal is recorded for recovery.
func (s *Server) enqueue(delivery, event string, bodyKey [sha256.Size]byte, job Job) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.accepted.seenID(delivery) {
		return http.StatusOK, "duplicate"
	}
	if s.accepted.seenBody(bodyKey) {
		// GitHub's own redeliveries keep their delivery id (handled
		// above); the same signed body under a new id is a replay.
		return http.StatusOK, "replay"
	}
	if s.draining {
		s.refused.add(Refusal{Delivery: delivery, Event: event, Installation: job.Installation, Repo: job.Repo, Issue: job.Issue, Reason: "draining", At: time.Now()})
		return http.StatusServiceUnavailable, "draining"
	}
	res := s.work.add(job)
	if res == addFull {
		// Not remembered: GitHub's redelivery of this id is accepted.
		s.refused.add(Refusal{Delivery: delivery, Event: event, Installation: job.Installation, Repo: job.Repo, Issue: job.Issue, Reason: res.String(), At: time.Now()})
		if s.opts.OnRefused != nil {
			s.opts.OnRefused()
		}
		return http.StatusServiceUnavailable, res.String()
	}
	if res == addQueued {
		s.opts.Metrics.SetQueueDepth(s.work.waitingLen())
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	s.accepted.remember(delivery, bodyKey)
	if res == addQueued {
		return http.StatusAccepted, "queued"
	}
	// Merged into a waiting item, or into a running one that runs again.
	return http.StatusAccepted, "merged"
}

// next takes the oldest waiting item; ok is false when draining left nothing.
func (s *Server) next() (Job, bool) {
	for {
		s.mu.Lock()
		if job, ok := s.work.take(); ok {
			waiting := s.work.waitingLen()
			s.opts.Metrics.SetQueueDepth(waiting)
			if waiting > 0 {
				select {
				case s.wake <- struct{}{}:
				default:
				}
			}
			s.mu.Unlock()
			return job, true
		}
		draining := s.draining
		s.mu.Unlock()
		if draining {
			// Pass the wake-up on so every idle worker sees the drain.
			select {
			case s.wake <- struct{}{}:
			default:
			}
			return Job{}, false
		}
		select {
		case <-s.wake:
		case <-s.workCtx.Done():
			return Job{}, false
		}
	}
}

// finish ends a job's run; deliveries that arrived meanwhile run it again
// (while draining too: they were accepted, and the grace period bounds
// the drain).
func (s *Server) finish(job Job) (Job, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.work.done(job.itemKey())
}

func (s *Server) worker() {
	defer s.wg.Done()
	for {
		job, ok := s.next()
		if !ok {
			return
		}
		for {
			s.runJob(job)
			again, more := s.finish(job)
			if !more {
				break
			}
			job = again
		}
	}
}

func (s *Server) runJob(job Job) {
	log := s.log.With("work_item", job.key(), "installation", job.Installation)
	results, err := s.opts.Runner.Run(s.workCtx, job)
	s.opts.Metrics.ObserveSteps(results)
	if err != nil {
		log.Warn("step ended with an error", "error", err)
		return
	}
	if n := len(results); n > 0 {
		log.Info("stepped", "steps", n, "stage", results[n-1].Stage, "outcome", results[n-1].Outcome)
	}
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	draining := s.draining
	s.mu.Unlock()
	if draining {
		writeText(w, http.StatusServiceUnavailable, "draining")
		return
	}
	if s.opts.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if err := s.opts.Ready(ctx); err != nil {
			writeText(w, http.StatusServiceUnavailable, "not ready: "+err.Error())
			return
		}
	}
	writeText(w, http.StatusOK, "ready")
}

// Idle reports whether nothing is queued or running.
func (s *Server) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.work.waitingLen() == 0 && s.work.runningLen() == 0
}

// QueueDepth reports how many items wait.
func (s *Server) QueueDepth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.work.waitingLen()
}

// Room reports how many more new items may wait before deliveries are
// refused (never negative).
func (s *Server) Room() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(s.opts.QueueSize-s.work.waitingLen(), 0)
}

// Refused returns the deliveries refused lately (at most
// Options.Refusals, oldest first): what recovery has to bring back.
func (s *Server) Refused() []Refusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused.list()
}

// Shutdown stops accepting deliveries and lets queued and in-flight work
// finish until ctx ends; then it cancels the steps still running (each
// releases its lock on the way out) and waits for them. It returns
// ctx.Err() when work had to be abandoned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.draining = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.cancelWork()
		return nil
	case <-ctx.Done():
		s.cancelWork()
		<-done
		s.mu.Lock()
		abandoned := s.work.waitingItems()
		s.mu.Unlock()
		// Their deliveries were answered 202, so GitHub's delivery log
		// shows them delivered and recovery will not bring them back:
		// name them for the operator; the cron steps them.
		s.log.Warn("grace period over: in-flight steps cancelled", "abandoned_queued", len(abandoned), "abandoned_items", abandoned)
		return ctx.Err()
	}
}
