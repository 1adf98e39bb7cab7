package pipeline

import (
	"sort"
	"time"
)

// LockState classifies the processing lock as seen at wake_up.
type LockState string

// Lock states.
const (
	LockFree  LockState = "free"
	LockFresh LockState = "fresh"
	LockStale LockState = "stale"
)

// LockClaim is one run's claim on the lock. Claims are issue comments, so
// GitHub assigns them increasing ids: among live claims the lowest id wins,
// which turns the label's check-then-set race into a total order.
type LockClaim struct {
	CommentID int64
	Owner     string
	At        time.Time
}

// LockPolicy decides lock freshness and ownership.
type LockPolicy struct {
	Timeout time.Duration
}

// Live returns the claims younger than the lock timeout, lowest id first.
func (p LockPolicy) Live(claims []LockClaim, now time.Time) []LockClaim {
	var live []LockClaim
	for _, c := range claims {
		if now.Sub(c.At) < p.Timeout {
			live = append(live, c)
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].CommentID < live[j].CommentID })
	return live
}

// Evaluate classifies the lock (ASSERT-PSM-005). It is fresh when a live
// claim exists, or when the processing label is present and was applied
// less than the timeout ago (labelAt, the time of its latest labeled
// event): a bare label is a lock too, since a run applies it before it
// posts its claim. It is stale when the label is older than the timeout
// with no live claim (a run was killed), and free without the label.
// A zero labelAt means the label's age is unknown and counts as stale.
func (p LockPolicy) Evaluate(labelPresent bool, labelAt time.Time, claims []LockClaim, now time.Time) LockState {
	if len(p.Live(claims, now)) > 0 {
		return LockFresh
	}
	if !labelPresent {
		return LockFree
	}
	if !labelAt.IsZero() && now.Sub(labelAt) < p.Timeout {
		return LockFresh
	}
	return LockStale
}

// Winner returns the claim that owns the lock, if any: the live claim with
// the lowest comment id.
func (p LockPolicy) Winner(claims []LockClaim, now time.Time) (LockClaim, bool) {
	live := p.Live(claims, now)
	if len(live) == 0 {
		return LockClaim{}, false
	}
	return live[0], true
}
