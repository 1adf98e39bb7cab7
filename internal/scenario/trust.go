package scenario

// HistoryWindow is how many recent trajectory outcomes History keeps per
// scenario; the trust score is computed over them.
const HistoryWindow = 100

// History maps a scenario id to its recent trajectory outcomes (true =
// satisfied), oldest first. It is a plain value so callers can persist it
// (e.g. in the state snapshot) as JSON.
type History map[string][]bool

// TrustLabel classifies a trust score.
type TrustLabel string

// Trust labels (seed 000): Trusted ≥ 0.95, Unstable ≥ 0.80, Unreliable
// below; Unrated when there is no recorded run.
const (
	TrustTrusted    TrustLabel = "Trusted"
	TrustUnstable   TrustLabel = "Unstable"
	TrustUnreliable TrustLabel = "Unreliable"
	TrustUnrated    TrustLabel = "Unrated"
)

// TrustScore is a scenario's pass rate over its recorded runs.
type TrustScore struct {
	Score float64
	Runs  int
	Label TrustLabel
}

// Trust computes the trust score of scenario id.
func (h History) Trust(id string) TrustScore {
	runs := h[id]
	if len(runs) == 0 {
		return TrustScore{Label: TrustUnrated}
	}
	passed := 0
	for _, ok := range runs {
		if ok {
			passed++
		}
	}
	score := float64(passed) / float64(len(runs))
	return TrustScore{Score: score, Runs: len(runs), Label: labelFor(score)}
}

func labelFor(score float64) TrustLabel {
	switch {
	case score >= 0.95:
		return TrustTrusted
	case score >= 0.80:
		return TrustUnstable
	}
	return TrustUnreliable
}

func (h History) clone() History {
	out := make(History, len(h))
	for k, v := range h {
		out[k] = append([]bool(nil), v...)
	}
	return out
}

// record appends outcomes for id, keeping the last HistoryWindow entries.
func (h History) record(id string, outcomes []bool) {
	runs := append(h[id], outcomes...)
	if len(runs) > HistoryWindow {
		runs = append([]bool(nil), runs[len(runs)-HistoryWindow:]...)
	}
	h[id] = runs
}
