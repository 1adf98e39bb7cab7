package xval

import (
	"fmt"
	"math"
	"strings"

	"github.com/cogworks/cogworks/finding"
)

// ExtractedValue is a value bound to a contract parameter, as returned by a
// domain service's extract_interfaces (or proposed at the architecture
// stage). Parameter is a parameter name, or for a field of a structured
// item "<parameter>.<item>.<field>" (e.g. "messages.BrakePressureFL.cycle_ms").
// Value is a float64, string or bool (other numeric types and numeric
// strings are accepted).
type ExtractedValue struct {
	Interface string `json:"interface"`
	Parameter string `json:"parameter"`
	Value     any    `json:"value"`
	Artifact  string `json:"artifact"`
	Line      int    `json:"line"`
	Domain    string `json:"domain"`
}

// Validate checks extracted values against the registry's contracts and
// runs the default computed constraints (DefaultConstraints) on every
// interface that has values. It needs nothing but the registry and the
// values, so it works with any single domain's service (ASSERT-XVAL-005).
func Validate(reg *Registry, values []ExtractedValue) []Finding {
	return ValidateWith(reg, values, DefaultConstraints())
}

// ValidateProposal checks values proposed at the architecture stage
// (ASSERT-XVAL-004). Unlike Validate, a value for an item of a structured
// parameter that the registry does not declare yet (e.g. a new CAN message)
// is a proposal to add that item: it is not reported as unbound, and the
// computed constraints count it.
func ValidateProposal(reg *Registry, proposed []ExtractedValue) []Finding {
	var bound []ExtractedValue
	for _, v := range proposed {
		if isNewItem(reg, v) {
			continue
		}
		bound = append(bound, v)
	}
	out := checkValues(reg, bound)
	out = append(out, runComputed(reg, proposed, DefaultConstraints())...)
	sortFindings(out)
	return out
}

// ValidateWith is Validate with an explicit set of computed constraints.
func ValidateWith(reg *Registry, values []ExtractedValue, constraints []ComputedConstraint) []Finding {
	out := checkValues(reg, values)
	out = append(out, runComputed(reg, values, constraints)...)
	sortFindings(out)
	return out
}

func checkValues(reg *Registry, values []ExtractedValue) []Finding {
	var out []Finding
	for _, v := range values {
		if f, ok := checkValue(reg, v); ok {
			out = append(out, f)
		}
	}
	return out
}

// isNewItem reports whether v addresses an item of a known structured
// parameter that the registry does not declare.
func isNewItem(reg *Registry, v ExtractedValue) bool {
	iface, ok := reg.Interface(v.Interface)
	if !ok {
		return false
	}
	name, item, _, ok := splitPath(v.Parameter)
	if !ok {
		return false
	}
	p, ok := iface.Parameters[name]
	if !ok || p.Kind != KindStructured {
		return false
	}
	_, exists := p.Item(item)
	return !exists
}

// splitPath splits "param.item.field"; ok is false for other shapes.
func splitPath(path string) (param, item, field string, ok bool) {
	parts := strings.Split(path, ".")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

// checkValue compares one value with its contract. ok is false when there
// is nothing to report.
func checkValue(reg *Registry, v ExtractedValue) (Finding, bool) {
	f := Finding{
		InterfaceID:     v.Interface,
		Parameter:       v.Parameter,
		Actual:          formatValue(v.Value),
		ViolatingDomain: v.Domain,
		Artifact:        v.Artifact,
		Line:            v.Line,
	}
	unbound := func(why string) (Finding, bool) {
		f.Severity = finding.Warning
		f.Message = "unbound contract reference: " + why
		return f, true
	}
	iface, ok := reg.Interface(v.Interface)
	if !ok {
		return unbound(fmt.Sprintf("interface %q is not in the registry", v.Interface))
	}
	f.OwnerDomain = iface.Owner
	name, rest, _ := strings.Cut(v.Parameter, ".")
	p, ok := iface.Parameters[name]
	if !ok {
		return unbound(fmt.Sprintf("interface %s has no parameter %q", iface.ID, name))
	}
	if p.Kind == KindStructured {
		return checkStructured(f, p, rest, v)
	}
	if rest != "" {
		return unbound(fmt.Sprintf("parameter %s of %s is %s, it has no field %q", name, iface.ID, p.Kind, rest))
	}
	f.Expected = p.Expected()
	switch p.Kind {
	case KindTolerance:
		return checkTolerance(f, p, v.Value)
	case KindExact:
		if scalarEqual(p.Value, v.Value) {
			return f, false
		}
		f.Severity = finding.Blocking
		f.Message = fmt.Sprintf("value %s does not equal the contract value %s", withUnit(f.Actual, p.Unit), withUnit(formatValue(p.Value), p.Unit))
		return f, true
	case KindEnum:
		s, isStr := v.Value.(string)
		switch {
		case isStr && s == p.Value:
			return f, false
		case isStr && contains(p.Allowed, s):
			f.Severity = finding.Warning
			f.Message = fmt.Sprintf("value %q is allowed but differs from the contract value %s", s, formatValue(p.Value))
		default:
			f.Severity = finding.Blocking
			f.Message = fmt.Sprintf("value %s is not one of the allowed values %s", f.Actual, joinQuoted(p.Allowed))
		}
		return f, true
	case KindBool:
		if b, isBool := v.Value.(bool); isBool && b == p.Value {
			return f, false
		}
		f.Severity = finding.Blocking
		f.Message = fmt.Sprintf("value %s does not equal the contract value %s", f.Actual, formatValue(p.Value))
		return f, true
	case KindRef:
		f.Severity = finding.Informational
		f.Message = fmt.Sprintf("parameter %s refers to %s; its content is not checked automatically", name, p.Ref)
		return f, true
	}
	return unbound(fmt.Sprintf("parameter %s has unknown kind %q", name, p.Kind))
}

func checkTolerance(f Finding, p Parameter, value any) (Finding, bool) {
	x, ok := toFloat(value)
	if !ok {
		f.Severity = finding.Blocking
		f.Message = fmt.Sprintf("expected a number, got %s %s", typeName(value), f.Actual)
		return f, true
	}
	f.Actual = withUnit(formatNum(x), p.Unit)
	switch {
	case x < p.Min || x > p.Max:
		f.Severity = finding.Blocking
		bound, dir := p.Max, "exceeds max"
		if x < p.Min {
			bound, dir = p.Min, "is below min"
		}
		f.Message = fmt.Sprintf("value %s %s %s", formatNum(x), dir, withUnit(formatNum(bound), p.Unit))
	case !numEqual(x, p.Nominal):
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("value %s is within [%s, %s] but deviates from nominal %s by %s",
			formatNum(x), formatNum(p.Min), formatNum(p.Max), formatNum(p.Nominal), formatNum(math.Abs(x-p.Nominal)))
	default:
		return f, false
	}
	return f, true
}

func checkStructured(f Finding, p Parameter, rest string, v ExtractedValue) (Finding, bool) {
	itemName, field, ok := strings.Cut(rest, ".")
	if !ok || itemName == "" || field == "" || strings.Contains(field, ".") {
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("unbound contract reference: structured parameter %s needs a path <parameter>.<item>.<field>, got %q", p.Name, v.Parameter)
		return f, true
	}
	item, ok := p.Item(itemName)
	if !ok {
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("unbound contract reference: %s has no item %q", p.Name, itemName)
		return f, true
	}
	want, ok := item.Fields[field]
	if !ok {
		f.Severity = finding.Warning
		f.Message = fmt.Sprintf("unbound contract reference: item %s of %s has no field %q", itemName, p.Name, field)
		return f, true
	}
	f.Expected = "= " + formatValue(want)
	if scalarEqual(want, v.Value) {
		return f, false
	}
	f.Severity = finding.Blocking
	f.Message = fmt.Sprintf("%s.%s is %s, the contract declares %s", itemName, field, f.Actual, formatValue(want))
	return f, true
}
