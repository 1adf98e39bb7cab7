package server

import (
	"crypto/sha256"
	"fmt"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/hashicorp/golang-lru/v2/expirable"
)

// deliveries remembers what the intake accepted, so that neither a
// GitHub redelivery (same X-GitHub-Delivery id) nor a captured body
// replayed under a fresh id is run twice. Both memories are bounded in
// entries, the least recently accepted forgotten first; bodies are also
// forgotten after the replay window. The signature covers only the body,
// which is why the body needs a memory of its own.
//
// The check-then-remember of one delivery must be atomic with the queue
// decision, so callers hold Server.mu around both; the caches' own locks
// only keep each cache consistent.
type deliveries struct {
	ids    *lru.Cache[string, struct{}]
	bodies *expirable.LRU[[sha256.Size]byte, struct{}]
}

// newDeliveries remembers up to size ids and size bodies, each body for
// window. The expirable cache runs one cleanup goroutine for the life of
// the process, so a Server makes this once.
func newDeliveries(size int, window time.Duration) (*deliveries, error) {
	ids, err := lru.New[string, struct{}](size)
	if err != nil {
		return nil, fmt.Errorf("delivery id memory of %d entries: %w", size, err)
	}
	return &deliveries{ids: ids, bodies: expirable.NewLRU[[sha256.Size]byte, struct{}](size, nil, window)}, nil
}

// seenID reports whether delivery was accepted before; "" (no id) never was.
func (d *deliveries) seenID(delivery string) bool {
	return delivery != "" && d.ids.Contains(delivery)
}

// seenBody reports whether body was accepted within the replay window.
// Peek, unlike Contains, checks the expiry and leaves the order alone.
func (d *deliveries) seenBody(body [sha256.Size]byte) bool {
	_, ok := d.bodies.Peek(body)
	return ok
}

// remember records an accepted delivery; the body's window starts again.
func (d *deliveries) remember(delivery string, body [sha256.Size]byte) {
	if delivery != "" {
		d.ids.Add(delivery, struct{}{})
	}
	d.bodies.Add(body, struct{}{})
}
