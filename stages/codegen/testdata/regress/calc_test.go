package regress

import "testing"

// TestUpstreamKnownFailure is red at the base commit: upstream left it
// failing, and a fix to Add must not be blamed for it.
func TestUpstreamKnownFailure(t *testing.T) {
	if got, want := Sub(3, 1), 3; got != want {
		t.Fatalf("Sub(3, 1) = %d, want %d", got, want)
	}
}

func TestSub(t *testing.T) {
	if got, want := Sub(5, 2), 3; got != want {
		t.Fatalf("Sub(5, 2) = %d, want %d", got, want)
	}
}
