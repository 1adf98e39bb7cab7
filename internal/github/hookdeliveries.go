package github

import (
	"context"
	"errors"
	"fmt"
	"time"

	gh "github.com/google/go-github/v62/github"
)

// HookDelivery is one attempt in the App's webhook delivery log.
type HookDelivery struct {
	ID          int64
	GUID        string
	DeliveredAt time.Time
	Redelivery  bool
	// Status is "OK" when the receiver answered 2xx; StatusCode is its
	// answer (0 when none came).
	Status       string
	StatusCode   int
	Event        string
	Action       string
	Installation int64
}

// ListHookDeliveries reads one page of the App's webhook delivery log
// (GET /app/hook/deliveries, App JWT), newest first, and returns the
// cursor of the next page ("" after the last one).
func (a *AppClients) ListHookDeliveries(ctx context.Context, cursor string, perPage int) ([]HookDelivery, string, error) {
	client, err := a.appClient()
	if err != nil {
		return nil, "", err
	}
	list, resp, err := client.Apps.ListHookDeliveries(ctx, &gh.ListCursorOptions{Cursor: cursor, PerPage: perPage})
	if err != nil {
		return nil, "", convertError(fmt.Sprintf("list App %d webhook deliveries", a.appID), err)
	}
	out := make([]HookDelivery, 0, len(list))
	for _, d := range list {
		out = append(out, HookDelivery{
			ID: d.GetID(), GUID: d.GetGUID(), DeliveredAt: d.GetDeliveredAt().Time, Redelivery: d.GetRedelivery(),
			Status: d.GetStatus(), StatusCode: d.GetStatusCode(), Event: d.GetEvent(), Action: d.GetAction(),
			Installation: d.GetInstallationID(),
		})
	}
	return out, resp.Cursor, nil
}

// RedeliverHookDelivery asks GitHub to send delivery attempt id again
// (POST /app/hook/deliveries/{id}/attempts); GitHub answers 202 and sends
// it under the same guid shortly after.
func (a *AppClients) RedeliverHookDelivery(ctx context.Context, id int64) error {
	client, err := a.appClient()
	if err != nil {
		return err
	}
	_, _, err = client.Apps.RedeliverHookDelivery(ctx, id)
	var accepted *gh.AcceptedError
	if err != nil && !errors.As(err, &accepted) {
		// go-github reports every 202 as an AcceptedError; here 202 is
		// the success GitHub documents.
		return convertError(fmt.Sprintf("redeliver App %d webhook delivery %d", a.appID, id), err)
	}
	return nil
}
