package server

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLog is a delivery log served in pages of perPage, newest first.
type fakeLog struct {
	attempts    []HookDelivery // newest first
	redelivered []int64
	pages       int
	// refuse lists attempt ids whose redelivery GitHub refuses.
	refuse map[int64]bool
}

// ListHookDeliveries serves pages of 2 whatever is asked, so the tests page.
func (f *fakeLog) ListHookDeliveries(_ context.Context, cursor string, _ int) ([]HookDelivery, string, error) {
	f.pages++
	start := 0
	if cursor != "" {
		start, _ = strconv.Atoi(cursor)
	}
	end := min(start+2, len(f.attempts))
	next := ""
	if end < len(f.attempts) {
		next = strconv.Itoa(end)
	}
	return f.attempts[start:end], next, nil
}

func (f *fakeLog) RedeliverHookDelivery(_ context.Context, id int64) error {
	if f.refuse[id] {
		return errors.New("422 Validation Failed")
	}
	f.redelivered = append(f.redelivered, id)
	return nil
}

func TestRecoverPass(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	at := func(minAgo int) time.Time { return now.Add(-time.Duration(minAgo) * time.Minute) }
	refused := func(id int64, guid string, minAgo int) HookDelivery {
		return HookDelivery{ID: id, GUID: guid, DeliveredAt: at(minAgo), Status: "Invalid HTTP Response: 503", StatusCode: 503, Event: "issues"}
	}
	accepted := func(id int64, guid string, minAgo int) HookDelivery {
		return HookDelivery{ID: id, GUID: guid, DeliveredAt: at(minAgo), Status: "OK", StatusCode: 202, Event: "issues", Redelivery: true}
	}
	tests := []struct {
		name     string
		attempts []HookDelivery // newest first
		room     int
		want     []int64 // attempt ids redelivered, in order
		refuse   map[int64]bool
		result   PassResult
	}{
		{
			name:     "a redelivery GitHub refuses does not stop the others",
			attempts: []HookDelivery{refused(2, "b", 1), refused(1, "a", 2)},
			refuse:   map[int64]bool{1: true},
			room:     100,
			want:     []int64{2},
			result:   PassResult{Listed: 2, Failed: 2, Redelivered: 1, Errors: 1},
		},
		{
			name:     "failed deliveries are redelivered oldest first; accepted ones are not",
			attempts: []HookDelivery{refused(5, "e", 1), accepted(4, "d", 2), refused(3, "c", 3), accepted(2, "b", 4), refused(1, "a", 5)},
			room:     100,
			want:     []int64{1, 3, 5},
			result:   PassResult{Listed: 5, Failed: 3, Redelivered: 3},
		},
		{
			name:     "a delivery redelivered and accepted since is done",
			attempts: []HookDelivery{accepted(3, "a", 1), refused(2, "b", 2), refused(1, "a", 3)},
			room:     100,
			want:     []int64{2},
			result:   PassResult{Listed: 3, Failed: 1, Redelivered: 1},
		},
		{
			name:     "the newest attempt of a delivery refused twice is redelivered",
			attempts: []HookDelivery{refused(2, "a", 1), refused(1, "a", 3)},
			room:     100,
			want:     []int64{2},
			result:   PassResult{Listed: 2, Failed: 1, Redelivered: 1},
		},
		{
			name:     "after three attempts a delivery is left to the cron",
			attempts: []HookDelivery{refused(3, "a", 1), refused(2, "a", 2), refused(1, "a", 3)},
			room:     100,
			result:   PassResult{Listed: 3, Failed: 1, GivenUp: 1},
		},
		{
			name:     "attempts older than the window are not read",
			attempts: []HookDelivery{refused(3, "c", 1), refused(2, "b", 61), refused(1, "a", 62)},
			room:     100,
			want:     []int64{3},
			result:   PassResult{Listed: 1, Failed: 1, Redelivered: 1},
		},
		{
			name:     "with no room left the rest waits for the next pass",
			attempts: []HookDelivery{refused(2, "b", 1), refused(1, "a", 2)},
			room:     0,
			result:   PassResult{Listed: 2, Failed: 2, Deferred: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &fakeLog{attempts: tt.attempts, refuse: tt.refuse}
			r := NewRecoverer(log, RecoverOptions{Window: time.Hour, Room: func() int { return tt.room }})
			res, err := r.Pass(context.Background(), now)
			require.NoError(t, err)
			assert.Equal(t, tt.want, log.redelivered)
			assert.Equal(t, tt.result, res)
		})
	}
}

func TestRecoverRunsAtStartAndAfterARefusal(t *testing.T) {
	log := &fakeLog{}
	kick := make(chan struct{}, 1)
	r := NewRecoverer(log, RecoverOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.runEvery(ctx, time.Hour, 20*time.Millisecond, kick); close(done) }()
	defer func() { cancel(); <-done }()
	require.Eventually(t, func() bool { return r.passes() == 1 }, 2*time.Second, time.Millisecond, "a pass at start")
	kick <- struct{}{}
	require.Eventually(t, func() bool { return r.passes() == 2 }, 2*time.Second, time.Millisecond, "a pass soon after a refusal, not an hour later")
}

// TestRecoverPassesAreIncremental: a later pass reads only the attempts
// logged since the last one, remembers the failures it could not
// redeliver yet, asks again for a redelivery refused once more, and
// forgets a delivery once an attempt of it is accepted.
func TestRecoverPassesAreIncremental(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	d := func(id int64, guid string, status int) HookDelivery {
		s := "OK"
		if status >= 300 {
			s = "Invalid HTTP Response: " + strconv.Itoa(status)
		}
		return HookDelivery{ID: id, GUID: guid, DeliveredAt: now.Add(time.Duration(id) * time.Second), Status: s, StatusCode: status, Event: "issues"}
	}
	log := &fakeLog{attempts: []HookDelivery{d(4, "d", 202), d(3, "c", 503), d(2, "b", 503), d(1, "a", 503)}}
	room := 1
	// Each redelivery takes a slot of the server's room.
	r := NewRecoverer(log, RecoverOptions{Window: time.Hour, Room: func() int { return room - len(log.redelivered) }, Patience: time.Minute})

	res, err := r.Pass(context.Background(), now.Add(10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, PassResult{Listed: 4, Failed: 3, Redelivered: 1, Deferred: 2}, res, "room for one")
	assert.Equal(t, []int64{1}, log.redelivered)
	assert.Equal(t, 2, log.pages)

	// a's redelivery was accepted, b's refused again; nothing else new.
	log.attempts = append([]HookDelivery{d(6, "b", 503), d(5, "a", 202)}, log.attempts...)
	room = 100
	log.pages = 0
	res, err = r.Pass(context.Background(), now.Add(20*time.Second))
	require.NoError(t, err)
	assert.Equal(t, PassResult{Listed: 2, Failed: 2, Redelivered: 2}, res, "c (attempt 3) and b (attempt 6), oldest first")
	assert.Equal(t, []int64{1, 3, 6}, log.redelivered)
	assert.Equal(t, 2, log.pages, "stops at the first attempt read before (reading all takes 3 pages)")

	// Nothing new: b and c were asked for less than Patience ago.
	res, err = r.Pass(context.Background(), now.Add(30*time.Second))
	require.NoError(t, err)
	assert.Equal(t, PassResult{Failed: 2, Deferred: 2}, res)
}
