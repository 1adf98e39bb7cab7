package legacy

import "testing"

func TestScenarioScale(t *testing.T) {
	if got := Scale(3, 4); got != 12 {
		t.Fatalf("Scale(3, 4) = %d, want 12", got)
	}
}
