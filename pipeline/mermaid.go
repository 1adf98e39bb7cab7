package pipeline

import (
	"fmt"
	"strings"
)

// MermaidID returns the Mermaid state id for a state: Mermaid ids cannot
// contain '-', so every '-' becomes '_' ("interface-design" ⇒
// "interface_design"). The mapping is the same everywhere the diagram is
// drawn.
func MermaidID(id StateID) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			return r
		}
		return '_'
	}, string(id))
}

// Mermaid renders the machine's stateDiagram-v2 projection: the entry
// from [*] to the start state, one line per transition labelled with its
// guard, terminal exits leading to [*], and current (if it is a state of
// the machine) highlighted with the "current" class. States whose id had
// to be rewritten keep their real name as a label.
func (m Machine) Mermaid(current StateID) string {
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	for _, s := range m.States {
		if id := MermaidID(s.ID); id != string(s.ID) {
			fmt.Fprintf(&b, "  state \"%s\" as %s\n", s.ID, id)
		}
	}
	fmt.Fprintf(&b, "  [*] --> %s\n", MermaidID(m.Start))
	for _, t := range m.Transitions {
		fmt.Fprintf(&b, "  %s --> %s", MermaidID(t.From), MermaidID(t.To))
		if t.GuardRef != "" {
			fmt.Fprintf(&b, ": %s", t.GuardRef)
		}
		b.WriteString("\n")
	}
	for _, s := range m.States {
		if s.Terminal {
			fmt.Fprintf(&b, "  %s --> [*]\n", MermaidID(s.ID))
		}
	}
	if _, ok := m.State(current); ok {
		b.WriteString("  classDef current fill:#f9f,stroke:#333\n")
		fmt.Fprintf(&b, "  class %s current\n", MermaidID(current))
	}
	return b.String()
}
