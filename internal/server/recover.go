package server

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"sync/atomic"
	"time"
)

// HookDelivery is one attempt of the App's webhook delivery log, as
// GitHub's GET /app/hook/deliveries lists it. A redelivery is a new
// attempt with the same GUID (the X-GitHub-Delivery id).
type HookDelivery struct {
	ID          int64
	GUID        string
	DeliveredAt time.Time
	Redelivery  bool
	// Status is "OK" for a 2xx answer, else GitHub's description of the
	// failure; StatusCode is the answer's status (0 when none came).
	Status       string
	StatusCode   int
	Event        string
	Action       string
	Installation int64
}

// ok reports whether the attempt reached CogWorks and was accepted.
func (d HookDelivery) ok() bool {
	return d.Status == "OK" || (d.StatusCode >= 200 && d.StatusCode < 300)
}

// HookDeliveries is the App's webhook delivery log on GitHub (App JWT).
type HookDeliveries interface {
	// ListHookDeliveries returns one page of attempts, newest first, and
	// the cursor of the next page ("" after the last).
	ListHookDeliveries(ctx context.Context, cursor string, perPage int) ([]HookDelivery, string, error)
	// RedeliverHookDelivery asks GitHub to send attempt id again.
	RedeliverHookDelivery(ctx context.Context, id int64) error
}

// RecoverOptions configure a Recoverer.
type RecoverOptions struct {
	// Window is how far back the log is read (default 6h; GitHub keeps
	// 3 days).
	Window time.Duration
	// MaxPages bounds the pages of 100 read per pass (default 20).
	MaxPages int
	// MaxAttempts: a delivery attempted this often in the window is left
	// to the cron (default 3), so a delivery that cannot succeed (a bad
	// signature) is not sent forever.
	MaxAttempts int
	// Room reports how many more items the server can take; a pass stops
	// redelivering below half of it (nil: no limit). GitHub redelivers
	// asynchronously, so this only paces, and a delivery refused again is
	// taken by the next pass.
	Room func() int
	// Reserve is the Room below which a pass stops redelivering.
	Reserve int
	Logger  *slog.Logger
}

// Recoverer brings back the deliveries GitHub recorded as failed: those
// this server refused (503) or never answered (down, restarting). GitHub
// does not retry a failed delivery by itself.
type Recoverer struct {
	api  HookDeliveries
	opts RecoverOptions
	log  *slog.Logger
	// npass counts the passes Run made (for tests).
	npass atomic.Int64
}

func (r *Recoverer) passes() int64 { return r.npass.Load() }

// NewRecoverer returns a Recoverer over the App's delivery log.
func NewRecoverer(api HookDeliveries, opts RecoverOptions) *Recoverer {
	if opts.Window <= 0 {
		opts.Window = 6 * time.Hour
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = 20
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 3
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recoverer{api: api, opts: opts, log: log}
}

// PassResult counts what one pass saw and did.
type PassResult struct {
	// Listed attempts read; Failed deliveries (GUIDs) with no accepted
	// attempt in the window; Redelivered of them; GivenUp: attempted
	// MaxAttempts times, left to the cron; Deferred: left for the next
	// pass because the server had no room.
	Listed, Failed, Redelivered, GivenUp, Deferred int
}

// Pass reads the delivery log back to the window and redelivers, oldest
// first, every delivery of which no attempt was accepted.
func (r *Recoverer) Pass(ctx context.Context, now time.Time) (PassResult, error) {
	var res PassResult
	since := now.Add(-r.opts.Window)
	type guidState struct {
		ok       bool
		attempts int
		newest   HookDelivery
	}
	byGUID := map[string]*guidState{}
	cursor := ""
	for page := 0; page < r.opts.MaxPages; page++ {
		list, next, err := r.api.ListHookDeliveries(ctx, cursor, 100)
		if err != nil {
			return res, fmt.Errorf("list the App's webhook deliveries: %w", err)
		}
		old := false
		for _, d := range list {
			if d.DeliveredAt.Before(since) {
				old = true
				continue
			}
			res.Listed++
			g := byGUID[d.GUID]
			if g == nil {
				g = &guidState{newest: d}
				byGUID[d.GUID] = g
			}
			g.attempts++
			g.ok = g.ok || d.ok()
			if d.DeliveredAt.After(g.newest.DeliveredAt) {
				g.newest = d
			}
		}
		if next == "" || old {
			break
		}
		cursor = next
	}
	var failed []HookDelivery
	for _, g := range byGUID {
		switch {
		case g.ok:
		case g.attempts >= r.opts.MaxAttempts:
			res.Failed++
			res.GivenUp++
		default:
			res.Failed++
			failed = append(failed, g.newest)
		}
	}
	sort.Slice(failed, func(i, j int) bool { return failed[i].DeliveredAt.Before(failed[j].DeliveredAt) })
	for i, d := range failed {
		if r.opts.Room != nil && r.opts.Room() <= r.opts.Reserve {
			res.Deferred = len(failed) - i
			break
		}
		if err := r.api.RedeliverHookDelivery(ctx, d.ID); err != nil {
			return res, fmt.Errorf("redeliver %s (attempt %d, %s): %w", d.GUID, d.ID, d.Event, err)
		}
		res.Redelivered++
		r.log.Info("failed delivery redelivered", "delivery", d.GUID, "event", d.Event, "installation", d.Installation, "status", d.Status)
	}
	return res, nil
}

// Run makes a pass at once, then every interval and soon after kick
// signals (a refusal), until ctx ends. Errors are logged: the next pass
// tries again and the cron covers what stays lost.
func (r *Recoverer) Run(ctx context.Context, interval time.Duration, kick <-chan struct{}) {
	if interval <= 0 {
		interval = 2 * time.Minute
	}
	// After a refusal, wait a little so the burst that caused it drains
	// first, and so a storm of refusals makes one pass, not many.
	r.runEvery(ctx, interval, min(interval, 10*time.Second), kick)
}

func (r *Recoverer) runEvery(ctx context.Context, interval, settle time.Duration, kick <-chan struct{}) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	due := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
			if time.Until(due) > settle {
				due = time.Now().Add(settle)
				timer.Reset(settle)
			}
			continue
		case <-timer.C:
		}
		res, err := r.Pass(ctx, time.Now())
		r.npass.Add(1)
		if err != nil {
			r.log.Warn("delivery recovery failed; retrying next pass", "error", err)
		} else if res.Failed > 0 {
			r.log.Info("delivery recovery pass", "listed", res.Listed, "failed", res.Failed, "redelivered", res.Redelivered,
				"given_up", res.GivenUp, "deferred", res.Deferred)
		}
		next := interval
		if err == nil && res.Deferred > 0 {
			next = settle
		}
		due = time.Now().Add(next)
		timer.Reset(next)
	}
}
