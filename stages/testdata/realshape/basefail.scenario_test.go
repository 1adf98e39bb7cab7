package calc

import "testing"

func TestScenarioAbs(t *testing.T) {
	if got := Abs(-3); got != 3 {
		t.Fatalf("Abs(-3) = %d, want 3", got)
	}
}
