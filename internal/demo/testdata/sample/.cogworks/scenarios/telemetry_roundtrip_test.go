package telemetry

import (
	"bytes"
	"testing"
)

// Held-out scenario: never shown to code generation.
func TestScenarioRoundTrip(t *testing.T) {
	for _, kpa := range []uint32{0, 1, 4095, 250000} {
		f := EncodeBrakePressure(kpa)
		if err := f.Validate(); err != nil {
			t.Fatalf("EncodeBrakePressure(%d) produced an invalid frame: %v", kpa, err)
		}
		if f.ID != BrakePressureID {
			t.Fatalf("frame id = %#x, want %#x", f.ID, BrakePressureID)
		}
		got, err := DecodeBrakePressure(f)
		if err != nil || got != kpa {
			t.Fatalf("round trip of %d = %d, %v", kpa, got, err)
		}
	}
	if _, err := DecodeBrakePressure(Frame{ID: 0x7, Data: bytes.Repeat([]byte{1}, 4)}); err == nil {
		t.Fatal("decoding a foreign frame must fail")
	}
}
