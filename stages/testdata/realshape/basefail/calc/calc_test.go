package calc

import "testing"

// This test fails at the base commit, before and after any fix of Abs:
// the wording it expects was never released.
func TestDivideByZeroWording(t *testing.T) {
	if _, err := Div(1, 0); err == nil || err.Error() != "calc: divide by zero" {
		t.Fatalf("Div(1, 0) error = %v, want calc: divide by zero", err)
	}
}
