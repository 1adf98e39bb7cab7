package xval

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/finding"
)

// ComputedConstraint is a constraint computed in code from several contract
// parameters and extracted values (docs/spec.md §11: "computed constraints are
// code, not registry formulas").
type ComputedConstraint interface {
	// Name identifies the constraint in messages, e.g. "can_bus_load".
	Name() string
	// Evaluate checks one interface given the values extracted for it (all
	// with Interface == iface.ID). It returns nil when the constraint does
	// not apply to the interface or none of its inputs were extracted.
	Evaluate(iface Interface, values []ExtractedValue) []Finding
}

// DefaultConstraints returns the built-in computed constraints.
func DefaultConstraints() []ComputedConstraint {
	return []ComputedConstraint{CANBusLoad{}}
}

// runComputed evaluates every constraint on every interface that has
// values, in registry order.
func runComputed(reg *Registry, values []ExtractedValue, constraints []ComputedConstraint) []Finding {
	byIface := map[string][]ExtractedValue{}
	for _, v := range values {
		byIface[v.Interface] = append(byIface[v.Interface], v)
	}
	var out []Finding
	done := map[string]bool{}
	for _, iface := range reg.interfaces() {
		vs := byIface[iface.ID]
		if len(vs) == 0 || done[iface.ID] {
			continue
		}
		done[iface.ID] = true
		for _, c := range constraints {
			out = append(out, c.Evaluate(iface, vs)...)
		}
	}
	return out
}

func (r *Registry) interfaces() []Interface {
	if r == nil {
		return nil
	}
	return r.Interfaces
}

// CANBusLoad computes the load of a classic CAN bus and checks it against
// the interface's max_bus_load tolerance parameter.
//
// Inputs, from the interface: the structured parameter "messages" (items
// with size_bytes and cycle_ms), "baud_rate" (exact, or tolerance whose
// nominal is used) and "max_bus_load" (tolerance). Extracted values
// override them: "baud_rate", "messages.<name>.size_bytes" and
// "messages.<name>.cycle_ms"; values naming a message the registry does not
// declare add that message (it then needs both fields).
//
// Bus load = Σ_messages FrameBits(size_bytes) / (cycle_ms / 1000) / baud_rate.
//
// The constraint applies only when at least one of its inputs was extracted
// (so checking an unrelated parameter does not re-check the whole bus).
type CANBusLoad struct{}

// Parameter names used by CANBusLoad.
const (
	paramMessages   = "messages"
	paramBaudRate   = "baud_rate"
	paramMaxBusLoad = "max_bus_load"
	fieldSize       = "size_bytes"
	fieldCycle      = "cycle_ms"
)

// Name implements ComputedConstraint.
func (CANBusLoad) Name() string { return "can_bus_load" }

// FrameBits returns the worst-case length in bits of a standard (11-bit
// identifier) CAN 2.0A data frame with size data bytes (0–8):
//
//	47 + 8·size + ⌊(34 + 8·size − 1) / 4⌋
//
// 47 fixed bits are SOF 1, identifier 11, RTR 1, IDE 1, r0 1, DLC 4,
// CRC 15, CRC delimiter 1, ACK slot and delimiter 2, EOF 7 and the 3-bit
// interframe space. Bit stuffing applies to the 34 + 8·size bits from SOF
// to the end of the CRC; in the worst case a stuff bit follows every four
// bits after the first, giving the floor term (Davis et al., "Controller
// Area Network (CAN) schedulability analysis", 2007). Eight data bytes give
// 135 bits.
func FrameBits(size int) int {
	return 47 + 8*size + (34+8*size-1)/4
}

// MessageLoad is one message's share of the bus.
type MessageLoad struct {
	Name      string
	SizeBytes int
	CycleMS   float64
	FrameBits int
	// BitsPerSecond is FrameBits / cycle time in seconds.
	BitsPerSecond float64
}

// BusLoad is the result of a bus load computation.
type BusLoad struct {
	Load     float64
	BaudRate float64
	Messages []MessageLoad
}

// Evaluate implements ComputedConstraint.
func (c CANBusLoad) Evaluate(iface Interface, values []ExtractedValue) []Finding {
	maxLoad, ok := iface.Parameters[paramMaxBusLoad]
	if !ok || maxLoad.Kind != KindTolerance {
		return nil
	}
	if msgs, ok := iface.Parameters[paramMessages]; !ok || msgs.Kind != KindStructured {
		return nil
	}
	inputs := busInputs(values)
	if len(inputs) == 0 {
		return nil
	}
	first := inputs[0]
	f := Finding{
		InterfaceID:     iface.ID,
		Parameter:       paramMaxBusLoad,
		OwnerDomain:     iface.Owner,
		ViolatingDomain: first.Domain,
		Artifact:        first.Artifact,
		Line:            first.Line,
		Expected:        maxLoad.Expected(),
	}
	load, err := c.Load(iface, values)
	if err != nil {
		f.Severity = finding.Blocking
		f.Message = "cannot compute CAN bus load: " + err.Error()
		return []Finding{f}
	}
	res, found := checkTolerance(f, maxLoad, load.Load)
	if !found {
		return nil
	}
	res.Actual = fmt.Sprintf("%s (computed from %d messages at %s bps)", withUnit(formatNum(round(load.Load)), maxLoad.Unit), len(load.Messages), formatNum(load.BaudRate))
	res.Message = "computed CAN bus load: " + res.Message
	return []Finding{res}
}

// busInputs returns the values that feed the bus load, sorted by artifact
// and line so the reported coordinates are deterministic.
func busInputs(values []ExtractedValue) []ExtractedValue {
	var in []ExtractedValue
	for _, v := range values {
		if v.Parameter == paramBaudRate || strings.HasPrefix(v.Parameter, paramMessages+".") {
			in = append(in, v)
		}
	}
	sort.SliceStable(in, func(i, j int) bool {
		if in[i].Artifact != in[j].Artifact {
			return in[i].Artifact < in[j].Artifact
		}
		return in[i].Line < in[j].Line
	})
	return in
}

// Load computes the bus load of iface's messages with values applied as
// overrides (see CANBusLoad). Messages are returned in registry order,
// then new messages by name.
func (CANBusLoad) Load(iface Interface, values []ExtractedValue) (BusLoad, error) {
	type msg struct {
		size, cycle any
	}
	msgs := map[string]*msg{}
	var order []string
	for _, it := range iface.Parameters[paramMessages].Items {
		msgs[it.Name] = &msg{size: it.Fields[fieldSize], cycle: it.Fields[fieldCycle]}
		order = append(order, it.Name)
	}
	baud := baudOf(iface.Parameters[paramBaudRate])
	var added []string
	for _, v := range values {
		if v.Parameter == paramBaudRate {
			baud = v.Value
			continue
		}
		p, item, field, ok := splitPath(v.Parameter)
		if !ok || p != paramMessages || (field != fieldSize && field != fieldCycle) {
			continue
		}
		m, ok := msgs[item]
		if !ok {
			m = &msg{}
			msgs[item] = m
			added = append(added, item)
		}
		if field == fieldSize {
			m.size = v.Value
		} else {
			m.cycle = v.Value
		}
	}
	sort.Strings(added)
	order = append(order, added...)

	var errs []string
	baudRate, ok := toFloat(baud)
	if !ok || baudRate <= 0 {
		errs = append(errs, fmt.Sprintf("%s must be a positive number, got %s", paramBaudRate, formatValue(baud)))
	}
	res := BusLoad{BaudRate: baudRate}
	var bitsPerSecond float64
	for _, name := range order {
		m := msgs[name]
		size, sizeOK := toFloat(m.size)
		cycle, cycleOK := toFloat(m.cycle)
		switch {
		case !sizeOK || size != float64(int(size)) || size < 0 || size > 8:
			errs = append(errs, fmt.Sprintf("message %s: %s must be an integer from 0 to 8 (CAN 2.0A), got %s", name, fieldSize, formatValue(m.size)))
			continue
		case !cycleOK || cycle <= 0:
			errs = append(errs, fmt.Sprintf("message %s: %s must be a positive number, got %s", name, fieldCycle, formatValue(m.cycle)))
			continue
		}
		ml := MessageLoad{Name: name, SizeBytes: int(size), CycleMS: cycle, FrameBits: FrameBits(int(size))}
		ml.BitsPerSecond = float64(ml.FrameBits) / (cycle / 1000)
		bitsPerSecond += ml.BitsPerSecond
		res.Messages = append(res.Messages, ml)
	}
	if len(errs) > 0 {
		return BusLoad{}, errors.New(strings.Join(errs, "; "))
	}
	res.Load = bitsPerSecond / baudRate
	return res, nil
}

func baudOf(p Parameter) any {
	switch p.Kind {
	case KindExact:
		return p.Value
	case KindTolerance:
		return p.Nominal
	}
	return nil
}

// round keeps four significant decimals for display.
func round(f float64) float64 {
	const k = 1e4
	if f < 0 {
		return -round(-f)
	}
	return float64(int64(f*k+0.5)) / k
}
