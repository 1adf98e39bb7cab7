package legacy

import "testing"

func TestUnit(t *testing.T) {
	if Unit != 1 {
		t.Fatal("Unit changed")
	}
}
