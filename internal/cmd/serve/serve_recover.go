package serve

import (
	"context"
	"log/slog"
	"time"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/server"
)

// hookLog adapts the App's delivery log (internal/github) to the
// server's port.
type hookLog struct{ Apps *github.AppClients }

func (h hookLog) ListHookDeliveries(ctx context.Context, cursor string, perPage int) ([]server.HookDelivery, string, error) {
	list, next, err := h.Apps.ListHookDeliveries(ctx, cursor, perPage)
	if err != nil {
		return nil, "", err
	}
	out := make([]server.HookDelivery, len(list))
	for i, d := range list {
		out[i] = server.HookDelivery{ID: d.ID, GUID: d.GUID, DeliveredAt: d.DeliveredAt, Redelivery: d.Redelivery,
			Status: d.Status, StatusCode: d.StatusCode, Event: d.Event, Action: d.Action, Installation: d.Installation}
	}
	return out, next, nil
}

func (h hookLog) RedeliverHookDelivery(ctx context.Context, id int64) error {
	return h.Apps.RedeliverHookDelivery(ctx, id)
}

// hookDeliveries returns the App's delivery log, or nil with a token:
// only an App has one (a repository webhook's log is per repository and
// needs admin rights), so there the cron recovers refused deliveries.
func hookDeliveries(src ClientSource) server.HookDeliveries {
	if a, ok := src.(*appSource); ok {
		return hookLog{Apps: a.apps}
	}
	return nil
}

// StartRecovery runs the Recoverer until ctx ends; the returned function
// waits for it to stop. kick is signalled when the server refuses a new
// item. With no delivery log or a zero interval it does nothing.
func StartRecovery(ctx context.Context, api server.HookDeliveries, srv *server.Server, opts *ServeOptions, kick <-chan struct{}, log *slog.Logger) func() {
	if api == nil || opts.RedeliverInterval == 0 {
		log.Info("failed deliveries are not redelivered by serve (token mode or --redeliver-interval 0); the process-all cron recovers their items")
		return func() {}
	}
	r := server.NewRecoverer(api, server.RecoverOptions{
		Window: opts.RedeliverWindow, Room: srv.Room, Reserve: opts.QueueSize / 2, Logger: log,
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, opts.RedeliverInterval, kick)
	}()
	return func() { <-done }
}

// redeliverDefaults are the flags' defaults: a pass every 2 minutes reads
// at most 20 pages of the log (App JWT requests, not an installation's).
const (
	defaultRedeliverInterval = 2 * time.Minute
	defaultRedeliverWindow   = 6 * time.Hour
)
