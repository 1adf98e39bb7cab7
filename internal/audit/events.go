package audit

import (
	"context"
	"sync"
)

// EventKind names what an audit event records.
type EventKind string

// Audit event kinds (docs/spec.md §14).
const (
	// KindLLMCall is one LLM call: model, tokens, cost, latency.
	KindLLMCall EventKind = "llm_call"
	// KindTransition is a stage transition, a retry or a failure.
	KindTransition EventKind = "transition"
	// KindGate is a gate decision: approved, refused or paused.
	KindGate EventKind = "gate"
	// KindRepair is a label set restored from the snapshot.
	KindRepair EventKind = "repair"
)

// Event is one audit-trail entry: an LLM call, a state transition, a gate
// decision or a label repair (docs/spec.md §14).
type Event struct {
	Kind    EventKind
	Stage   string
	SWI     string
	Summary string
}

// Events collects a step's audit events. It is safe for concurrent use.
type Events struct {
	mu   sync.Mutex
	list []Event
}

type eventsKey struct{}

// WithEvents returns a context carrying a fresh event log for one step.
func WithEvents(ctx context.Context) (context.Context, *Events) {
	ev := &Events{}
	return context.WithValue(ctx, eventsKey{}, ev), ev
}

// Record adds an event to the step's log carried by ctx; without one it
// does nothing, so library code can record unconditionally.
func Record(ctx context.Context, e Event) {
	if ev, ok := ctx.Value(eventsKey{}).(*Events); ok {
		ev.Add(e)
	}
}

// Add appends an event.
func (ev *Events) Add(e Event) {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	ev.list = append(ev.list, e)
}

// List returns the events in the order they were recorded.
func (ev *Events) List() []Event {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	return append([]Event(nil), ev.list...)
}
