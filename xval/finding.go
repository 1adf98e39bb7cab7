package xval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/finding"
)

func severityRank(s finding.Severity) int {
	switch s {
	case finding.Blocking:
		return 0
	case finding.Warning:
		return 1
	}
	return 2
}

// Finding is one registry or constraint validation result. For registry
// checks Artifact is the definition file; for constraint validation it is
// the artifact the value was extracted from.
type Finding struct {
	Severity        finding.Severity `json:"severity"`
	InterfaceID     string           `json:"interface_id"`
	Parameter       string           `json:"parameter,omitempty"`
	Expected        string           `json:"expected,omitempty"`
	Actual          string           `json:"actual,omitempty"`
	OwnerDomain     string           `json:"owner_domain,omitempty"`
	ViolatingDomain string           `json:"violating_domain,omitempty"`
	Artifact        string           `json:"artifact,omitempty"`
	Line            int              `json:"line,omitempty"`
	Message         string           `json:"message"`
}

// String renders the finding on one line with its coordinates.
func (f Finding) String() string {
	var b strings.Builder
	if f.Artifact != "" {
		b.WriteString(f.Artifact)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%s: %s", f.Severity, f.InterfaceID)
	if f.Parameter != "" {
		fmt.Fprintf(&b, " %s", f.Parameter)
	}
	fmt.Fprintf(&b, ": %s", f.Message)
	if f.Expected != "" || f.Actual != "" {
		fmt.Fprintf(&b, " (expected %s, actual %s)", f.Expected, f.Actual)
	}
	return b.String()
}

// HasBlocking reports whether any finding is blocking.
func HasBlocking(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == finding.Blocking {
			return true
		}
	}
	return false
}

// sortFindings orders findings blocking first, then by interface,
// parameter, artifact, line and message.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := severityRank(a.Severity), severityRank(b.Severity); ra != rb {
			return ra < rb
		}
		if a.InterfaceID != b.InterfaceID {
			return a.InterfaceID < b.InterfaceID
		}
		if a.Parameter != b.Parameter {
			return a.Parameter < b.Parameter
		}
		if a.Artifact != b.Artifact {
			return a.Artifact < b.Artifact
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Message < b.Message
	})
}

// FindingsError is returned by ValidateDir when the registry has blocking
// findings; it carries them so callers can report each one.
type FindingsError struct {
	Findings []Finding
}

// Error implements error, listing every blocking finding.
func (e *FindingsError) Error() string {
	lines := make([]string, 0, len(e.Findings))
	for _, f := range e.Findings {
		lines = append(lines, f.String())
	}
	return fmt.Sprintf("interface registry has %d blocking finding(s):\n%s", len(e.Findings), strings.Join(lines, "\n"))
}
