package telemetry

import "testing"

func TestFrameValidate(t *testing.T) {
	tests := []struct {
		name    string
		frame   Frame
		wantErr bool
	}{
		{"ok", Frame{ID: 0x120, Data: make([]byte, 4)}, false},
		{"id too large", Frame{ID: 0x800}, true},
		{"too long", Frame{ID: 0x1, Data: make([]byte, 9)}, true},
	}
	for _, tt := range tests {
		if err := tt.frame.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%s: Validate() = %v, want error %v", tt.name, err, tt.wantErr)
		}
	}
}
