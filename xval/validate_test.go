package xval

import (
	"testing"

	"github.com/cogworks/cogworks/finding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const canID = "SWD-IF-CAN-01"

func val(param string, v any) ExtractedValue {
	return ExtractedValue{Interface: canID, Parameter: param, Value: v, Artifact: "telemetry/can.go", Line: 42, Domain: "software"}
}

func TestValidateEveryParameterKind(t *testing.T) {
	reg := goodRegistry(t)
	tests := []struct {
		name     string
		value    ExtractedValue
		severity finding.Severity // "" means no finding
		message  string
	}{
		{"tolerance nominal", val("max_bus_load", 0.3), "", ""},
		{"tolerance nominal within epsilon", val("max_bus_load", 0.30000000000000004), "", ""},
		{"tolerance off nominal", val("max_bus_load", 0.45), finding.Warning, "value 0.45 is within [0, 0.5] but deviates from nominal 0.3 by 0.15"},
		{"tolerance at max", val("max_bus_load", 0.5), finding.Warning, "deviates from nominal"},
		{"tolerance above max", val("max_bus_load", 0.55), finding.Blocking, "value 0.55 exceeds max 0.5 ratio"},
		{"tolerance below min", val("max_bus_load", -0.1), finding.Blocking, "value -0.1 is below min 0 ratio"},
		{"tolerance not a number", val("max_bus_load", "high"), finding.Blocking, `expected a number, got string "high"`},
		{"tolerance numeric string", val("max_bus_load", "0.3"), "", ""},
		{"exact equal", val("baud_rate", 500000.0), "", ""},
		{"exact equal as int", val("baud_rate", 500000), "", ""},
		{"exact mismatch", val("baud_rate", 250000.0), finding.Blocking, "value 250000 bps does not equal the contract value 500000 bps"},
		{"exact wrong type", val("baud_rate", true), finding.Blocking, "does not equal"},
		{"enum contract value", val("connector", "JST-PH-4"), "", ""},
		{"enum allowed other", val("connector", "JST-PH-6"), finding.Warning, `value "JST-PH-6" is allowed but differs from the contract value "JST-PH-4"`},
		{"enum not allowed", val("connector", "Molex"), finding.Blocking, `value "Molex" is not one of the allowed values "JST-PH-4", "JST-PH-6"`},
		{"bool equal", val("termination_required", true), "", ""},
		{"bool mismatch", val("termination_required", false), finding.Blocking, "value false does not equal the contract value true"},
		{"bool as string", val("termination_required", "true"), finding.Blocking, "does not equal"},
		{"ref informational", val("wiring", "docs/can-wiring.md"), finding.Informational, "refers to docs/can-wiring.md"},
		{"structured field equal", val("messages.BrakePressureFL.cycle_ms", 10.0), "", ""},
		{"structured hex id equal", val("messages.BrakePressureFL.can_id", "0x120"), "", ""},
		{"structured field mismatch", val("messages.BrakePressureFL.cycle_ms", 20.0), finding.Blocking, "BrakePressureFL.cycle_ms is 20, the contract declares 10"},
		{"structured unknown item", val("messages.Nope.cycle_ms", 10.0), finding.Warning, `unbound contract reference: messages has no item "Nope"`},
		{"structured unknown field", val("messages.BrakePressureFL.dlc", 4.0), finding.Warning, `unbound contract reference: item BrakePressureFL of messages has no field "dlc"`},
		{"structured without item path", val("messages", 1.0), finding.Warning, "unbound contract reference: structured parameter messages needs a path"},
		{"scalar with sub-path", val("baud_rate.x", 1.0), finding.Warning, "unbound contract reference: parameter baud_rate of SWD-IF-CAN-01 is exact"},
		{"unknown parameter", val("jitter", 1.0), finding.Warning, `unbound contract reference: interface SWD-IF-CAN-01 has no parameter "jitter"`},
		{"unknown interface", ExtractedValue{Interface: "NOPE-1", Parameter: "x", Value: 1.0}, finding.Warning, `unbound contract reference: interface "NOPE-1" is not in the registry`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := ValidateWith(reg, []ExtractedValue{tt.value}, nil)
			if tt.severity == "" {
				assert.Empty(t, fs)
				return
			}
			require.Len(t, fs, 1, "%v", fs)
			assert.Equal(t, tt.severity, fs[0].Severity)
			assert.Contains(t, fs[0].Message, tt.message)
		})
	}
}

func TestAssertXVAL001_HardViolationBlocksWithCoordinates(t *testing.T) {
	fs := Validate(goodRegistry(t), []ExtractedValue{val("max_bus_load", 0.55)})
	require.Len(t, fs, 1)
	assert.Equal(t, Finding{
		Severity:        finding.Blocking,
		InterfaceID:     canID,
		Parameter:       "max_bus_load",
		Expected:        "0 ≤ x ≤ 0.5 (nominal 0.3) ratio",
		Actual:          "0.55 ratio",
		OwnerDomain:     "firmware",
		ViolatingDomain: "software",
		Artifact:        "telemetry/can.go",
		Line:            42,
		Message:         "value 0.55 exceeds max 0.5 ratio",
	}, fs[0])
	assert.True(t, HasBlocking(fs))
}

func TestAssertXVAL002_NominalDeviationWarns(t *testing.T) {
	fs := Validate(goodRegistry(t), []ExtractedValue{val("max_bus_load", 0.42)})
	require.Len(t, fs, 1)
	assert.Equal(t, finding.Warning, fs[0].Severity)
	assert.False(t, HasBlocking(fs))
	assert.Equal(t, "0.42 ratio", fs[0].Actual)
	assert.Equal(t, "0 ≤ x ≤ 0.5 (nominal 0.3) ratio", fs[0].Expected)
}

// TestAssertXVAL005_SingleDomainService validates firmware values against a
// contract owned by the electrical domain with only the firmware service
// registered.
func TestAssertXVAL005_SingleDomainService(t *testing.T) {
	services := []ServiceInfo{{Name: "fw", Domain: "firmware"}}
	rep, err := ValidateDir(goodDir, goodRoot, services)
	require.NoError(t, err, "a missing electrical/software service is not blocking")
	for _, f := range rep.Findings {
		assert.Equal(t, finding.Warning, f.Severity)
	}

	fs := Validate(rep.Registry, []ExtractedValue{
		{Interface: "ELEC-IF-PWR-01", Parameter: "voltage", Value: 5.5, Artifact: "fw/adc.c", Line: 7, Domain: "firmware"},
		{Interface: "ELEC-IF-PWR-01", Parameter: "voltage", Value: 5.0, Artifact: "fw/adc.c", Line: 9, Domain: "firmware"},
	})
	require.Len(t, fs, 1)
	assert.Equal(t, finding.Blocking, fs[0].Severity)
	assert.Equal(t, "electrical", fs[0].OwnerDomain)
	assert.Equal(t, "firmware", fs[0].ViolatingDomain)
	assert.Equal(t, 7, fs[0].Line)
}

func TestAssertXVAL006_ComputedBusLoad(t *testing.T) {
	reg := goodRegistry(t)
	can, _ := reg.Interface(canID)

	t.Run("three declared messages", func(t *testing.T) {
		load, err := CANBusLoad{}.Load(can, nil)
		require.NoError(t, err)
		// BrakePressureFL 4 B / 10 ms: 95 bits → 9500 bit/s
		// WheelSpeed      8 B / 20 ms: 135 bits → 6750 bit/s
		// Heartbeat       1 B / 100 ms: 65 bits → 650 bit/s
		require.Len(t, load.Messages, 3)
		assert.Equal(t, []int{95, 135, 65}, []int{load.Messages[0].FrameBits, load.Messages[1].FrameBits, load.Messages[2].FrameBits})
		assert.InDelta(t, 9500, load.Messages[0].BitsPerSecond, 1e-9)
		assert.InDelta(t, 16900.0/500000, load.Load, 1e-12)
		assert.Equal(t, 500000.0, load.BaudRate)
	})

	t.Run("extracted cycles push load over max", func(t *testing.T) {
		values := []ExtractedValue{
			val("messages.BrakePressureFL.cycle_ms", 1.0),
			val("messages.WheelSpeed.cycle_ms", 1.0),
			val("messages.Heartbeat.cycle_ms", 1.0),
		}
		values[0].Line = 10
		load, err := CANBusLoad{}.Load(can, values)
		require.NoError(t, err)
		// (95 + 135 + 65) bits per ms = 295000 bit/s at 500000 bit/s.
		assert.InDelta(t, 0.59, load.Load, 1e-12)

		fs := Validate(reg, values)
		var computed []Finding
		for _, f := range fs {
			if f.Parameter == "max_bus_load" {
				computed = append(computed, f)
			}
		}
		require.Len(t, computed, 1)
		f := computed[0]
		assert.Equal(t, finding.Blocking, f.Severity)
		assert.Equal(t, "0.59 ratio (computed from 3 messages at 500000 bps)", f.Actual)
		assert.Equal(t, "0 ≤ x ≤ 0.5 (nominal 0.3) ratio", f.Expected)
		assert.Equal(t, "computed CAN bus load: value 0.59 exceeds max 0.5 ratio", f.Message)
		assert.Equal(t, "telemetry/can.go", f.Artifact)
		assert.Equal(t, 10, f.Line, "coordinates of the first contributing value")
		assert.Equal(t, "software", f.ViolatingDomain)
		assert.Equal(t, "firmware", f.OwnerDomain)
	})

	t.Run("baud rate override", func(t *testing.T) {
		load, err := CANBusLoad{}.Load(can, []ExtractedValue{val("baud_rate", 125000.0)})
		require.NoError(t, err)
		assert.InDelta(t, 16900.0/125000, load.Load, 1e-12)
	})

	t.Run("invalid inputs are blocking", func(t *testing.T) {
		fs := ValidateWith(reg, []ExtractedValue{val("messages.WheelSpeed.size_bytes", 12.0)}, DefaultConstraints())
		var msgs []string
		for _, f := range fs {
			msgs = append(msgs, f.Message)
		}
		assert.Contains(t, msgs, "cannot compute CAN bus load: message WheelSpeed: size_bytes must be an integer from 0 to 8 (CAN 2.0A), got 12")
	})

	t.Run("unrelated values do not trigger it", func(t *testing.T) {
		assert.Empty(t, Validate(reg, []ExtractedValue{val("termination_required", true)}))
	})
}

func TestFrameBits(t *testing.T) {
	for size, want := range map[int]int{0: 55, 1: 65, 2: 75, 4: 95, 8: 135} {
		assert.Equal(t, want, FrameBits(size), "size %d", size)
	}
}

// TestValidateProposalCatchesBusOverload is the building block of
// ASSERT-XVAL-004: new messages proposed at the architecture stage are added
// to the declared ones before the bus load is checked.
func TestValidateProposalCatchesBusOverload(t *testing.T) {
	reg := goodRegistry(t)
	var proposed []ExtractedValue
	for _, name := range []string{"NewA", "NewB", "NewC", "NewD"} {
		proposed = append(proposed,
			ExtractedValue{Interface: canID, Parameter: "messages." + name + ".size_bytes", Value: 8.0, Artifact: "spec.md", Domain: "software"},
			ExtractedValue{Interface: canID, Parameter: "messages." + name + ".cycle_ms", Value: 1.0, Artifact: "spec.md", Domain: "software"},
		)
	}
	fs := ValidateProposal(reg, proposed)
	require.Len(t, fs, 1, "new messages are not unbound references: %v", fs)
	assert.Equal(t, finding.Blocking, fs[0].Severity)
	assert.Equal(t, "max_bus_load", fs[0].Parameter)
	// 16900 + 4·135000 bit/s over 500000 bit/s.
	assert.Contains(t, fs[0].Actual, "1.1138 ratio (computed from 7 messages")

	small := []ExtractedValue{
		{Interface: canID, Parameter: "messages.Tiny.size_bytes", Value: 1.0, Domain: "software"},
		{Interface: canID, Parameter: "messages.Tiny.cycle_ms", Value: 1000.0, Domain: "software"},
	}
	fs = ValidateProposal(reg, small)
	require.Len(t, fs, 1)
	assert.Equal(t, finding.Warning, fs[0].Severity, "well below nominal is a nominal deviation, not a violation")

	incomplete := []ExtractedValue{{Interface: canID, Parameter: "messages.Half.size_bytes", Value: 2.0}}
	fs = ValidateProposal(reg, incomplete)
	require.Len(t, fs, 1)
	assert.Contains(t, fs[0].Message, "message Half: cycle_ms must be a positive number, got null")
}

func TestFindingsSortedBlockingFirst(t *testing.T) {
	fs := Validate(goodRegistry(t), []ExtractedValue{
		val("connector", "JST-PH-6"),
		val("max_bus_load", 0.9),
		val("jitter", 1.0),
	})
	require.Len(t, fs, 3)
	assert.Equal(t, []finding.Severity{finding.Blocking, finding.Warning, finding.Warning}, []finding.Severity{fs[0].Severity, fs[1].Severity, fs[2].Severity})
	assert.Equal(t, "connector", fs[1].Parameter)
}
