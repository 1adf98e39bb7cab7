package rootlib

import "testing"

func TestStep001(t *testing.T) {
	if got := Step001(2); got != "[3]" {
		t.Fatalf("Step001(2) = %q, want [3]", got)
	}
}
