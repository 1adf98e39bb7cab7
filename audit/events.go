package audit

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Event is one audit-trail entry: an LLM call, a validation result, a
// state transition or a gate decision (SPEC §14).
type Event struct {
	Kind    string // llm_call | validation | transition | gate
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

// EventsKey is the key of the audit comment of one step: one per stage (or
// SWI stage) attempt, so a re-run of the same attempt edits it in place.
func EventsKey(workItem int, attempt string, n int) string {
	return Key(fmt.Sprint(workItem), "audit", attempt, fmt.Sprint(n))
}

// EventsComment renders a step's events as one compact comment.
func EventsComment(key, title string, events []Event) string {
	var b strings.Builder
	b.WriteString("| kind | stage | sub-work-item | event |\n|---|---|---|---|\n")
	for _, e := range events {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(e.Kind), cell(e.Stage), cell(e.SWI), cell(e.Summary))
	}
	return Format(Comment{Key: key, Title: title, Body: b.String()})
}
