package retry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func TestParseAfter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"  ", 0, false},
		{"12", 12 * time.Second, true},
		{"0", 0, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"-3", 0, false},
		{"NaN", 0, false},
		{"soon", 0, false},
		{now.Add(30 * time.Second).Format(http.TimeFormat), 30 * time.Second, true},
		{"Mon, 01 Jan 2024 00:00:30 GMT", 0, true}, // in the past: retry now
	}
	for _, tt := range tests {
		got, ok := ParseAfter(tt.in, now)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestAfterPrefersMilliseconds(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	_, ok := After(h, now)
	assert.False(t, ok, "no header, no requested delay")

	h.Set("Retry-After", "7")
	d, ok := After(h, now)
	require.True(t, ok)
	assert.Equal(t, 7*time.Second, d)

	h.Set("retry-after-ms", "250")
	d, ok = After(h, now)
	require.True(t, ok)
	assert.Equal(t, 250*time.Millisecond, d)

	h.Set("retry-after-ms", "garbage")
	d, ok = After(h, now)
	require.True(t, ok)
	assert.Equal(t, 7*time.Second, d, "an unparsable retry-after-ms falls back to Retry-After")
}

func TestBackoffIsJitteredAndCapped(t *testing.T) {
	t.Parallel()
	b := Backoff{Base: 100 * time.Millisecond, Max: time.Second}
	for attempt := range 40 {
		d := time.Second
		if attempt < 4 {
			d = 100 * time.Millisecond << attempt
		}
		for range 20 {
			got := b.Delay(attempt)
			assert.GreaterOrEqual(t, got, d/2, "attempt %d", attempt)
			assert.LessOrEqual(t, got, d, "attempt %d", attempt)
		}
	}
}

func TestBackoffInjectedJitterSeesTheCappedDelay(t *testing.T) {
	t.Parallel()
	var seen []time.Duration
	b := Backoff{Base: time.Second, Max: 5 * time.Second, Jitter: func(d time.Duration) time.Duration {
		seen = append(seen, d)
		return d
	}}
	for attempt := range 5 {
		b.Delay(attempt)
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}, seen)
}

func TestWaitHonoursRetryAfterWithinTheBound(t *testing.T) {
	t.Parallel()
	b := Backoff{Base: time.Second, Max: time.Second, Jitter: func(d time.Duration) time.Duration { return d }}
	tests := []struct {
		name     string
		after    time.Duration
		hasAfter bool
		maxWait  time.Duration
		want     time.Duration
		tooLong  bool
	}{
		{"no Retry-After: backoff", 0, false, time.Minute, time.Second, false},
		{"Retry-After within the bound", 30 * time.Second, true, time.Minute, 30 * time.Second, false},
		{"Retry-After: 0 means now", 0, true, time.Minute, 0, false},
		{"Retry-After over the bound", 2 * time.Minute, true, time.Minute, 0, true},
		{"no bound", time.Hour, true, 0, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Wait(b, 0, tt.after, tt.hasAfter, tt.maxWait)
			if tt.tooLong {
				var tl *TooLongError
				require.ErrorAs(t, err, &tl)
				assert.Equal(t, tt.after, tl.Asked)
				assert.Equal(t, tt.maxWait, tl.Limit)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	err := Sleep(ctx, time.Hour)
	require.ErrorIs(t, err, context.Canceled)
	assert.Less(t, time.Since(start), time.Second)
	assert.True(t, errors.Is(Sleep(ctx, 0), context.Canceled), "a cancelled context is reported even without a wait")
	require.NoError(t, Sleep(context.Background(), time.Millisecond))
}
