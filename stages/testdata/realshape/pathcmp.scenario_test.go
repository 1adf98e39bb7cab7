package where

import "testing"

func TestScenarioBase(t *testing.T) {
	if got := Base("a/b/c.go"); got != "c.go" {
		t.Fatalf("Base(a/b/c.go) = %q, want c.go", got)
	}
}
