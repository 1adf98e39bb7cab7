package units

import "testing"

func TestBestMetres(t *testing.T) {
	if v, u := Best(999); v != "999" || u != "m" {
		t.Fatalf("Best(999) = %s %s", v, u)
	}
}
