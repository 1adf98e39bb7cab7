package xval

import (
	"fmt"
	"sort"
)

// Kind is the kind of an interface parameter.
type Kind string

// Parameter kinds (docs/spec.md §11).
const (
	KindTolerance  Kind = "tolerance"
	KindExact      Kind = "exact"
	KindEnum       Kind = "enum"
	KindBool       Kind = "bool"
	KindRef        Kind = "ref"
	KindStructured Kind = "structured"
)

// ExternalDomain is the domain name that needs no registered service.
const ExternalDomain = "external"

// Interface is one contract between domains.
type Interface struct {
	ID           string
	Version      string
	Type         string
	Title        string
	Description  string
	Owner        string
	Participants []string
	Parameters   map[string]Parameter
	// File is the definition's path as shown in messages.
	File string
}

// Domains returns the owner followed by the participants.
func (i Interface) Domains() []string {
	return append([]string{i.Owner}, i.Participants...)
}

// ParameterNames returns the parameter names in sorted order.
func (i Interface) ParameterNames() []string {
	names := make([]string, 0, len(i.Parameters))
	for n := range i.Parameters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Parameter is one constrained parameter of an interface. Which fields are
// meaningful depends on Kind:
//   - tolerance: Nominal, Min, Max, Unit
//   - exact: Value (float64, string or bool), Unit
//   - enum: Value (string), Allowed
//   - bool: Value (bool)
//   - ref: Ref (a repository-relative path or a URL)
//   - structured: Items
type Parameter struct {
	Name        string
	Kind        Kind
	Description string
	Value       any
	Nominal     float64
	Min         float64
	Max         float64
	Unit        string
	Allowed     []string
	Ref         string
	Items       []Item
}

// Item returns the structured item with the given name.
func (p Parameter) Item(name string) (Item, bool) {
	for _, it := range p.Items {
		if it.Name == name {
			return it, true
		}
	}
	return Item{}, false
}

// Item is one named entry of a structured parameter, e.g. a CAN message.
// Field values are float64, string or bool.
type Item struct {
	Name   string
	Fields map[string]any
}

// Registry is the set of loaded interface definitions.
type Registry struct {
	// Interfaces in load order (files sorted by name). Duplicate ids are
	// kept so that Check can report them.
	Interfaces []Interface
}

// Interface returns the first interface with the given id.
func (r *Registry) Interface(id string) (Interface, bool) {
	if r == nil {
		return Interface{}, false
	}
	for _, i := range r.Interfaces {
		if i.ID == id {
			return i, true
		}
	}
	return Interface{}, false
}

// IDs returns the interface ids in load order.
func (r *Registry) IDs() []string {
	if r == nil {
		return nil
	}
	ids := make([]string, len(r.Interfaces))
	for i, iface := range r.Interfaces {
		ids[i] = iface.ID
	}
	return ids
}

// Expected renders the contract of a scalar parameter for humans, e.g.
// "0 ≤ x ≤ 0.5 (nominal 0.3) ratio" or "= 500000 bps".
func (p Parameter) Expected() string {
	switch p.Kind {
	case KindTolerance:
		return withUnit(fmt.Sprintf("%s ≤ x ≤ %s (nominal %s)", formatNum(p.Min), formatNum(p.Max), formatNum(p.Nominal)), p.Unit)
	case KindExact:
		return withUnit("= "+formatValue(p.Value), p.Unit)
	case KindEnum:
		return fmt.Sprintf("%s (allowed: %s)", formatValue(p.Value), joinQuoted(p.Allowed))
	case KindBool:
		return "= " + formatValue(p.Value)
	case KindRef:
		return "see " + p.Ref
	case KindStructured:
		return fmt.Sprintf("%d declared items", len(p.Items))
	}
	return ""
}

func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}
