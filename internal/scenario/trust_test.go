package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func outcomes(passed, failed int) []bool {
	out := make([]bool, 0, passed+failed)
	for range passed {
		out = append(out, true)
	}
	for range failed {
		out = append(out, false)
	}
	return out
}

func TestHistoryTrust(t *testing.T) {
	tests := []struct {
		name string
		runs []bool
		want TrustScore
	}{
		{"no runs", nil, TrustScore{Label: TrustUnrated}},
		{"all pass", outcomes(10, 0), TrustScore{Score: 1, Runs: 10, Label: TrustTrusted}},
		{"exactly 0.95", outcomes(19, 1), TrustScore{Score: 0.95, Runs: 20, Label: TrustTrusted}},
		{"just below 0.95", outcomes(18, 1), TrustScore{Score: 18.0 / 19, Runs: 19, Label: TrustUnstable}},
		{"exactly 0.80", outcomes(8, 2), TrustScore{Score: 0.8, Runs: 10, Label: TrustUnstable}},
		{"below 0.80", outcomes(7, 3), TrustScore{Score: 0.7, Runs: 10, Label: TrustUnreliable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := History{"S": tt.runs}
			assert.Equal(t, tt.want, h.Trust("S"))
		})
	}
}

func TestHistoryRecordKeepsWindow(t *testing.T) {
	h := History{}
	h.record("S", outcomes(0, HistoryWindow))
	h.record("S", outcomes(20, 0))
	assert.Len(t, h["S"], HistoryWindow)
	assert.Equal(t, 0.2, h.Trust("S").Score, "the oldest failures fell out of the window")

	orig := History{"S": outcomes(1, 0)}
	c := orig.clone()
	c.record("S", outcomes(0, 1))
	assert.Len(t, orig["S"], 1, "clone is independent")
}
