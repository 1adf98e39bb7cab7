package factory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
)

// fakeRates is a rateSource whose last-seen and fetched windows are set
// by the test.
type fakeRates struct {
	last    github.RateLimit
	fresh   github.RateLimit
	err     error
	fetches int
}

func (f *fakeRates) RateLimit() github.RateLimit { return f.last }

func (f *fakeRates) FetchRateLimit(context.Context) (github.RateLimit, error) {
	f.fetches++
	return f.fresh, f.err
}

func TestRateReserve(t *testing.T) {
	reset := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	window := func(remaining int) github.RateLimit {
		return github.RateLimit{Limit: 1000, Remaining: remaining, Reset: reset, Resource: github.CoreResource}
	}
	tests := []struct {
		name        string
		src         *fakeRates
		reserve     int
		wantShort   bool
		wantFetches int
	}{
		{"no figures yet", &fakeRates{}, 100, false, 0},
		{"above the reserve: no request", &fakeRates{last: window(500)}, 100, false, 0},
		{"at the reserve", &fakeRates{last: window(100)}, 100, false, 0},
		{"below, and GitHub confirms", &fakeRates{last: window(60), fresh: window(55)}, 100, true, 1},
		{"below, but the window reset", &fakeRates{last: window(60), fresh: window(1000)}, 100, false, 1},
		{"below, and the check fails: the last figures stand", &fakeRates{last: window(60), err: errors.New("boom")}, 100, true, 1},
		{"no reserve", &fakeRates{last: window(0)}, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := factory.RateReserve{Src: tt.src, Reserve: tt.reserve}
			if tt.reserve <= 0 {
				r.Src = nil // as newRateReserve does
			}
			why := r.Short(context.Background())
			assert.Equal(t, tt.wantShort, why != "", why)
			assert.Equal(t, tt.wantFetches, tt.src.fetches)
			if tt.wantShort {
				assert.Contains(t, why, "of 1000 requests left (reserve 100")
				assert.Contains(t, why, "resets at 20:00:00 UTC")
			}
		})
	}
	assert.Empty(t, factory.NewRateReserve(nil, 100).Short(context.Background()), "a client without rate figures is never short")
}
