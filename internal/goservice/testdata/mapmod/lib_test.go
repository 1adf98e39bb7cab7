package mapmod

import "testing"

func TestJoin(t *testing.T) {
	if Join(nil) != "" {
		t.Fatal("want empty")
	}
}
