package mail

import "testing"

func TestScenarioWelcomeTrimsName(t *testing.T) {
	got, err := Welcome("  Ada \n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Hello Ada, welcome aboard.\n-- the team\n"; got != want {
		t.Fatalf("Welcome = %q, want %q", got, want)
	}
}
