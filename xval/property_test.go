package xval

import (
	"fmt"
	"testing"

	"github.com/cogworks/cogworks/finding"
	"pgregory.net/rapid"
)

func toleranceRegistry(min, nominal, max float64) *Registry {
	return regOf(Interface{
		ID: "IF-T", Owner: "firmware", Parameters: map[string]Parameter{
			"p": {Name: "p", Kind: KindTolerance, Min: min, Nominal: nominal, Max: max, Unit: "u"},
		},
	})
}

// drawTolerance draws min ≤ nominal ≤ max.
func drawTolerance(t *rapid.T) (min, nominal, max float64) {
	min = rapid.Float64Range(-1e6, 1e6).Draw(t, "min")
	max = min + rapid.Float64Range(0, 1e6).Draw(t, "width")
	nominal = min + (max-min)*rapid.Float64Range(0, 1).Draw(t, "nominalFrac")
	return min, nominal, max
}

func TestPropertyValueInsideToleranceNeverBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		min, nominal, max := drawTolerance(t)
		x := min + (max-min)*rapid.Float64Range(0, 1).Draw(t, "xFrac")
		if x > max { // guard against rounding in the interpolation
			x = max
		}
		fs := ValidateWith(toleranceRegistry(min, nominal, max), []ExtractedValue{{Interface: "IF-T", Parameter: "p", Value: x}}, nil)
		if HasBlocking(fs) {
			t.Fatalf("x=%v in [%v, %v] gave blocking finding %v", x, min, max, fs)
		}
	})
}

func TestPropertyValueOutsideToleranceAlwaysBlocking(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		min, nominal, max := drawTolerance(t)
		delta := rapid.Float64Range(1e-6, 1e6).Draw(t, "delta")
		x := max + delta*(1+abs(max))
		if rapid.Bool().Draw(t, "below") {
			x = min - delta*(1+abs(min))
		}
		fs := ValidateWith(toleranceRegistry(min, nominal, max), []ExtractedValue{{Interface: "IF-T", Parameter: "p", Value: x}}, nil)
		if len(fs) != 1 || fs[0].Severity != finding.Blocking {
			t.Fatalf("x=%v outside [%v, %v] gave %v", x, min, max, fs)
		}
	})
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// drawBus draws an interface with 1–10 messages.
func drawBus(t *rapid.T) Interface {
	n := rapid.IntRange(1, 10).Draw(t, "messages")
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Name: fmt.Sprintf("M%d", i), Fields: map[string]any{
			fieldSize:  float64(rapid.IntRange(0, 8).Draw(t, "size")),
			fieldCycle: rapid.Float64Range(1, 1000).Draw(t, "cycle"),
		}}
	}
	return Interface{ID: "BUS", Parameters: map[string]Parameter{
		paramMessages:   {Name: paramMessages, Kind: KindStructured, Items: items},
		paramBaudRate:   {Name: paramBaudRate, Kind: KindExact, Value: float64(rapid.SampledFrom([]int{125000, 250000, 500000, 1000000}).Draw(t, "baud"))},
		paramMaxBusLoad: {Name: paramMaxBusLoad, Kind: KindTolerance, Max: 0.5, Nominal: 0.3},
	}}
}

func TestPropertyBusLoadMonotoneInSize(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bus := drawBus(t)
		items := bus.Parameters[paramMessages].Items
		k := rapid.IntRange(0, len(items)-1).Draw(t, "k")
		size := items[k].Fields[fieldSize].(float64)
		bigger := size + float64(rapid.IntRange(0, int(8-size)).Draw(t, "grow"))
		before, err := CANBusLoad{}.Load(bus, nil)
		if err != nil {
			t.Fatal(err)
		}
		after, err := CANBusLoad{}.Load(bus, []ExtractedValue{{Interface: "BUS", Parameter: "messages." + items[k].Name + ".size_bytes", Value: bigger}})
		if err != nil {
			t.Fatal(err)
		}
		if after.Load < before.Load {
			t.Fatalf("size %v → %v lowered load %v → %v", size, bigger, before.Load, after.Load)
		}
	})
}

func TestPropertyBusLoadMonotoneInFrequency(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bus := drawBus(t)
		items := bus.Parameters[paramMessages].Items
		k := rapid.IntRange(0, len(items)-1).Draw(t, "k")
		cycle := items[k].Fields[fieldCycle].(float64)
		shorter := cycle * rapid.Float64Range(0.01, 1).Draw(t, "factor")
		before, err := CANBusLoad{}.Load(bus, nil)
		if err != nil {
			t.Fatal(err)
		}
		after, err := CANBusLoad{}.Load(bus, []ExtractedValue{{Interface: "BUS", Parameter: "messages." + items[k].Name + ".cycle_ms", Value: shorter}})
		if err != nil {
			t.Fatal(err)
		}
		if after.Load < before.Load {
			t.Fatalf("cycle %v → %v lowered load %v → %v", cycle, shorter, before.Load, after.Load)
		}
	})
}
