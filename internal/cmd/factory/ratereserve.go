package factory

import (
	"context"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
)

// OutcomeDeferred is the result of process-all for a work item it did not
// start, and of a serve job it did not run, because the GitHub rate limit
// was down to the reserve. The item's next event or the next cron run
// takes it; it is not a failure.
const OutcomeDeferred engine.StepOutcome = "deferred"

// rateSource reports the REST rate-limit window as last seen, and asks
// GitHub for it afresh; the GitHub adapter's client implements it.
type rateSource interface {
	RateLimit() github.RateLimit
	FetchRateLimit(ctx context.Context) (github.RateLimit, error)
}

// RateReserve keeps process-all and serve from starting work items once
// the REST window is down to reserve requests: an Actions token has 1,000
// an hour per repository, shared with every other workflow of the
// repository, an installation's window with its people and other apps,
// and a step that started must be able to finish its writes.
type RateReserve struct {
	Src     rateSource // nil: nothing to check
	Reserve int
}

// NewRateReserve keeps reserve GitHub requests of gh's rate limit unspent;
// reserve <= 0, or a client that reports no rate limit, reserves nothing.
func NewRateReserve(gh Client, reserve int) RateReserve {
	src, _ := gh.(rateSource)
	if reserve <= 0 {
		src = nil
	}
	return RateReserve{Src: src, Reserve: reserve}
}

// Short explains why no work item may start now, or is "". The figures
// of the last answer decide, at no cost; before any answer carried them,
// items may start. Figures below the reserve are confirmed by asking
// GitHub (free of the limit), since the window may have reset or the
// figures be a previous run's; if that fails, the last figures stand.
func (r RateReserve) Short(ctx context.Context) string {
	if r.Src == nil {
		return ""
	}
	rl := r.Src.RateLimit()
	if rl.Limit == 0 || rl.Remaining >= r.Reserve {
		return ""
	}
	if fresh, err := r.Src.FetchRateLimit(ctx); err == nil {
		rl = fresh
	}
	if rl.Remaining >= r.Reserve {
		return ""
	}
	return fmt.Sprintf("GitHub rate limit: %d of %d requests left (reserve %d, --rate-reserve), window resets at %s; the item waits for its next event or run",
		rl.Remaining, rl.Limit, r.Reserve, rl.Reset.UTC().Format(time.TimeOnly+" MST"))
}
