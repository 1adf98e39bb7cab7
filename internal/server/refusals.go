package server

import (
	"time"

	"github.com/cogworks/cogworks/internal/github"
)

// Refusal is a delivery the server answered 503 without accepting it: a
// trigger that is lost unless it is delivered again (see Recoverer) or the
// cron steps the item.
type Refusal struct {
	// Delivery is the X-GitHub-Delivery id (GitHub's guid).
	Delivery     string
	Event        string
	Installation int64
	Repo         github.Repo
	Issue        int
	// Reason is "queue_full" or "draining".
	Reason string
	At     time.Time
}

// refusals is a ring of the latest refusals. Plain data: Server.mu guards it.
type refusals struct {
	ring []Refusal
	next int
	full bool
}

func newRefusals(size int) *refusals { return &refusals{ring: make([]Refusal, size)} }

func (r *refusals) add(x Refusal) {
	r.ring[r.next] = x
	r.next = (r.next + 1) % len(r.ring)
	r.full = r.full || r.next == 0
}

// list returns the remembered refusals, oldest first.
func (r *refusals) list() []Refusal {
	if !r.full {
		return append([]Refusal(nil), r.ring[:r.next]...)
	}
	return append(append([]Refusal(nil), r.ring[r.next:]...), r.ring[:r.next]...)
}
