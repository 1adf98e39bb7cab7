package parse

import "testing"

func TestScenarioTrimBothSides(t *testing.T) {
	got := Fields(" a , b ,c ")
	for i, want := range []string{"a", "b", "c"} {
		if got[i] != want {
			t.Fatalf("Fields = %q, want [a b c]", got)
		}
	}
}
