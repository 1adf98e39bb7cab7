package codegen

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/finding"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// feedbackItem is one structured problem handed back to the implementer
// (ASSERT-CODE-001): which artifact, where, how bad and what.
type feedbackItem struct {
	Artifact string
	Location string
	Severity finding.Severity
	Category string
	Message  string
}

func (f feedbackItem) String() string {
	where := f.Location
	if where == "" {
		where = f.Artifact
	}
	if where == "" {
		where = "(no location)"
	}
	return fmt.Sprintf("[%s %s] %s: %s", f.Severity, f.Category, where, f.Message)
}

// diagnosticItems converts the effectively blocking diagnostics to
// feedback items; the rest are ignored (warnings do not fail an attempt).
func diagnosticItems(diags []domain.Diagnostic) []feedbackItem {
	var out []feedbackItem
	for _, d := range diags {
		if d.EffectiveSeverity() != domain.SeverityBlocking {
			continue
		}
		out = append(out, feedbackItem{
			Artifact: d.Artifact,
			Location: formatLocation(d.Location),
			Severity: d.Severity,
			Category: string(d.Category),
			Message:  d.Message,
		})
	}
	return out
}

func formatLocation(l domain.Location) string {
	switch {
	case l.File == "":
		return ""
	case l.Line > 0 && l.Column > 0:
		return fmt.Sprintf("%s:%d:%d", l.File, l.Line, l.Column)
	case l.Line > 0:
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return l.File
}

// attemptFailure is why one code generation attempt was rejected.
type attemptFailure struct {
	// Summary names the failing step in one line.
	Summary string
	Items   []feedbackItem
	// Verbatim is simulation output fed back as it is (ASSERT-CODE-002).
	Verbatim string
	// Edits reports the changes that did not apply, with the nearest
	// matching lines; it replaces the Items list in the feedback.
	Edits string
	// Interpretation is the failure analyst's reading of a non-obvious
	// simulation failure (ASSERT-CODE-003).
	Interpretation *Interpretation
}

// rejection is the failure as AttemptLoop records it: the summary and
// details for the audit trail, the rendering for the next prompt.
func (f attemptFailure) rejection(attempt int) *stagekit.Rejection {
	return &stagekit.Rejection{Summary: f.Summary, Problems: f.Lines(), Feedback: f.Render(attempt)}
}

// Lines lists the failure's details for the audit trail.
func (f attemptFailure) Lines() []string {
	var out []string
	for _, it := range f.Items {
		out = append(out, it.String())
	}
	if f.Interpretation != nil {
		out = append(out, "interpretation: "+f.Interpretation.Summary)
	}
	return out
}

// Render is the feedback text for the next attempt.
func (f attemptFailure) Render(attempt int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Attempt %d was rejected: %s\n", attempt, f.Summary)
	if f.Edits != "" {
		b.WriteString("\nChanges that could not be applied (copy `old` exactly from the file, whitespace included):\n")
		b.WriteString(f.Edits)
	} else if len(f.Items) > 0 {
		b.WriteString("\nDiagnostics (severity, category, location, message):\n")
		for _, it := range f.Items {
			fmt.Fprintf(&b, "- %s\n", it)
		}
	}
	if f.Verbatim != "" {
		b.WriteString("\nOutput of the failing tests:\n")
		b.WriteString(f.Verbatim)
		if !strings.HasSuffix(f.Verbatim, "\n") {
			b.WriteByte('\n')
		}
	}
	if in := f.Interpretation; in != nil {
		b.WriteString("\nAnalysis of the test failure:\n")
		fmt.Fprintf(&b, "- summary: %s\n- likely cause: %s\n- suggested fix: %s\n", in.Summary, in.LikelyCause, in.SuggestedFix)
		if len(in.Locations) > 0 {
			fmt.Fprintf(&b, "- locations: %s\n", strings.Join(in.Locations, ", "))
		}
	}
	return b.String()
}

// Interpretation is the output of the interpret_failure prompt.
type Interpretation struct {
	Summary      string   `json:"summary"`
	LikelyCause  string   `json:"likely_cause"`
	SuggestedFix string   `json:"suggested_fix"`
	Locations    []string `json:"locations"`
}

// selfExplanatory reports whether a failed simulation explains itself, so
// its output can go back to the implementer verbatim (ASSERT-CODE-002):
// the domain service marked a compile error, or marked every blocking
// diagnostic (one per failing test) as explaining itself (an assertion
// diff, a panic with its stack, a timeout). Anything else, including a
// failure reported without diagnostics or by a service older than
// Extension API 1.2, goes to the failure analyst.
func selfExplanatory(res domain.SimulateResult) bool {
	for _, d := range res.Diagnostics {
		if d.Explains == domain.ExplainsCompileError {
			return true
		}
	}
	blocking := 0
	for _, d := range res.Diagnostics {
		if d.EffectiveSeverity() != domain.SeverityBlocking {
			continue
		}
		if !d.SelfExplanatory() {
			return false
		}
		blocking++
	}
	return blocking > 0
}

// maxVerbatim bounds the simulation output fed back (its tail is kept).
const maxVerbatim = 16 << 10

// failureOutput is what the service reported about each failure (the
// failing tests with their output, the packages that did not build), or
// the whole run's output when it reported nothing blocking.
func failureOutput(res domain.SimulateResult) string {
	var b strings.Builder
	for _, d := range res.Diagnostics {
		if d.EffectiveSeverity() != domain.SeverityBlocking {
			continue
		}
		if where := formatLocation(d.Location); where != "" {
			fmt.Fprintf(&b, "--- %s\n", where)
		}
		b.WriteString(d.Message)
		if !strings.HasSuffix(d.Message, "\n") {
			b.WriteByte('\n')
		}
	}
	out := b.String()
	if out == "" {
		out = res.Output
	}
	if len(out) > maxVerbatim {
		out = "…(truncated)\n" + out[len(out)-maxVerbatim:]
	}
	return out
}
