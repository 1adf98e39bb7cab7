package mail

import (
	"strings"
	"testing"
)

func TestWelcomeSigned(t *testing.T) {
	got, err := Welcome("Ada")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "-- the team\n") {
		t.Fatalf("Welcome(Ada) = %q, not signed", got)
	}
}
