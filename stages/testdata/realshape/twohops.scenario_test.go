package render

import "testing"

func TestScenarioOneKilometre(t *testing.T) {
	if got := Distance(1000); got != "1 km" {
		t.Fatalf("Distance(1000) = %q, want 1 km", got)
	}
}
