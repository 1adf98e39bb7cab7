package can

import "testing"

func TestEncode(t *testing.T) {
	f := Encode(0x0102)
	if f.ID != 0x120 || f.Len() != 2 || f.Data[0] != 1 || f.Data[1] != 2 {
		t.Fatalf("Encode = %+v", f)
	}
}
