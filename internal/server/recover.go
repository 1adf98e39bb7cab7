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
	// MaxPages bounds the pages of 100 attempts read per pass (default
	// 50). Only the first pass reads far back; later ones stop at the
	// newest attempt already read, usually after one page.
	MaxPages int
	// MaxAttempts: a delivery attempted this often in the window is left
	// to the cron (default 3), so a delivery that cannot succeed (a bad
	// signature) is not sent forever.
	MaxAttempts int
	// Patience is how long a redelivery is given to show in the log
	// before the delivery is asked for again (default 1m): GitHub sends
	// it asynchronously.
	Patience time.Duration
	// Room reports how many more items the server can take; a pass stops
	// redelivering at Reserve or below (nil: no limit). GitHub redelivers
	// asynchronously, so this only paces, and a delivery refused again is
	// taken by a later pass.
	Room    func() int
	Reserve int
	Logger  *slog.Logger
}

// Recoverer brings back the deliveries GitHub recorded as failed: those
// this server refused (503) or never answered (down, restarting). GitHub
// does not retry a failed delivery by itself. Not safe for concurrent
// use: Run makes one pass at a time.
type Recoverer struct {
	api  HookDeliveries
	opts RecoverOptions
	log  *slog.Logger
	// newest is the highest attempt id read; failed holds the deliveries
	// (by guid) none of whose attempts read so far was accepted.
	newest int64
	failed map[string]*failedDelivery
	// npass counts the passes Run made (for tests).
	npass atomic.Int64
}

// failedDelivery is a delivery waiting to be redelivered.
type failedDelivery struct {
	attempts int
	newest   HookDelivery
	asked    time.Time // when a redelivery was last requested
}

func (r *Recoverer) passes() int64 { return r.npass.Load() }

// NewRecoverer returns a Recoverer over the App's delivery log.
func NewRecoverer(api HookDeliveries, opts RecoverOptions) *Recoverer {
	if opts.Window <= 0 {
		opts.Window = 6 * time.Hour
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = 50
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 3
	}
	if opts.Patience <= 0 {
		opts.Patience = time.Minute
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recoverer{api: api, opts: opts, log: log, failed: map[string]*failedDelivery{}}
}

// PassResult counts what one pass saw and did.
type PassResult struct {
	// Listed: attempts read. Failed: deliveries with no accepted attempt
	// in the window. Redelivered of them; GivenUp: attempted MaxAttempts
	// times, left to the cron; Deferred: left for a later pass because
	// the server had no room or a redelivery is still on its way.
	Listed, Failed, Redelivered, GivenUp, Deferred int
	// Errors: redeliveries GitHub refused (each counts as an attempt).
	Errors int
	// Truncated: MaxPages ended the reading before the window or the
	// attempts already read; older failures are left to the cron.
	Truncated bool
}

// Pass reads the attempts logged since the last pass (back to the window
// on the first) and redelivers, oldest first, every delivery none of
// whose attempts was accepted.
func (r *Recoverer) Pass(ctx context.Context, now time.Time) (PassResult, error) {
	var res PassResult
	since := now.Add(-r.opts.Window)
	fresh, top, truncated, err := r.read(ctx, since)
	if err != nil {
		return res, err
	}
	res.Listed, res.Truncated = len(fresh), truncated
	r.newest = max(r.newest, top)
	accepted := map[string]bool{}
	for i := len(fresh) - 1; i >= 0; i-- { // oldest first
		d := fresh[i]
		if d.ok() {
			delete(r.failed, d.GUID)
			accepted[d.GUID] = true
			continue
		}
		if accepted[d.GUID] {
			continue
		}
		f := r.failed[d.GUID]
		if f == nil {
			f = &failedDelivery{}
			r.failed[d.GUID] = f
		}
		f.attempts++
		f.newest = d
		f.asked = time.Time{} // the last redelivery came back refused
	}
	var todo []*failedDelivery
	for guid, f := range r.failed {
		switch {
		case f.newest.DeliveredAt.Before(since):
			delete(r.failed, guid)
		case f.attempts >= r.opts.MaxAttempts:
			res.Failed++
			res.GivenUp++
		default:
			res.Failed++
			todo = append(todo, f)
		}
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].newest.DeliveredAt.Before(todo[j].newest.DeliveredAt) })
	for _, f := range todo {
		d := f.newest
		if !f.asked.IsZero() && now.Sub(f.asked) < r.opts.Patience {
			res.Deferred++
			continue
		}
		if r.opts.Room != nil && r.opts.Room() <= r.opts.Reserve {
			res.Deferred++
			continue
		}
		f.asked = now
		if err := r.api.RedeliverHookDelivery(ctx, d.ID); err != nil {
			if ctx.Err() != nil {
				return res, fmt.Errorf("redeliver %s: %w", d.GUID, ctx.Err())
			}
			// One refused redelivery (GitHub answers 422 for a delivery
			// it no longer keeps) must not stop the others; it counts as
			// an attempt, so it is given up on after MaxAttempts.
			f.attempts++
			res.Errors++
			r.log.Warn("redelivery refused", "delivery", d.GUID, "attempt", d.ID, "event", d.Event, "error", err)
			continue
		}
		res.Redelivered++
		r.log.Info("failed delivery redelivered", "delivery", d.GUID, "event", d.Event, "installation", d.Installation, "status", d.Status)
	}
	return res, nil
}

// read returns the attempts newer than the last pass's and the window,
// newest first, with the highest id among them.
func (r *Recoverer) read(ctx context.Context, since time.Time) (fresh []HookDelivery, top int64, truncated bool, err error) {
	cursor := ""
	for page := 0; page < r.opts.MaxPages; page++ {
		list, next, err := r.api.ListHookDeliveries(ctx, cursor, 100)
		if err != nil {
			return nil, 0, false, fmt.Errorf("list the App's webhook deliveries: %w", err)
		}
		for _, d := range list {
			if d.ID <= r.newest || d.DeliveredAt.Before(since) {
				return fresh, top, false, nil
			}
			top = max(top, d.ID)
			fresh = append(fresh, d)
		}
		if next == "" {
			return fresh, top, false, nil
		}
		cursor = next
	}
	return fresh, top, true, nil
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
		} else if res.Truncated {
			r.log.Warn("delivery log read only in part; older failed deliveries are left to the cron", "pages", r.opts.MaxPages)
		}
		if err == nil && res.Failed > 0 {
			r.log.Info("delivery recovery pass", "listed", res.Listed, "failed", res.Failed, "redelivered", res.Redelivered,
				"given_up", res.GivenUp, "deferred", res.Deferred, "errors", res.Errors)
		}
		next := interval
		if err == nil && res.Deferred > 0 {
			next = settle
		}
		due = time.Now().Add(next)
		timer.Reset(next)
	}
}
