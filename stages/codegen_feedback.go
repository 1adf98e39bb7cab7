package stages

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// feedbackItem is one structured problem handed back to the implementer
// (ASSERT-CODE-001): which artifact, where, how bad and what.
type feedbackItem struct {
	Artifact string
	Location string
	Severity string
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
			Severity: string(d.Severity),
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
	Interpretation *interpretation
}

// rejection is the failure as attemptLoop records it: the summary and
// details for the audit trail, the rendering for the next prompt.
func (f attemptFailure) rejection(attempt int) *rejection {
	return &rejection{summary: f.Summary, problems: f.lines(), feedback: f.render(attempt)}
}

// lines lists the failure's details for the audit trail.
func (f attemptFailure) lines() []string {
	var out []string
	for _, it := range f.Items {
		out = append(out, it.String())
	}
	if f.Interpretation != nil {
		out = append(out, "interpretation: "+f.Interpretation.Summary)
	}
	return out
}

// render is the feedback text for the next attempt.
func (f attemptFailure) render(attempt int) string {
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

// interpretation is the output of the interpret_failure prompt.
type interpretation struct {
	Summary      string   `json:"summary"`
	LikelyCause  string   `json:"likely_cause"`
	SuggestedFix string   `json:"suggested_fix"`
	Locations    []string `json:"locations"`
}

var (
	assertionGotWant = regexp.MustCompile(`(?is)\bgot\b.*\bwant(ed)?\b|\bwant(ed)?\b.*\bgot\b`)
	assertionExpAct  = regexp.MustCompile(`(?is)\bexpected\b.*\bactual\b|\bactual\b.*\bexpected\b`)
	panicWithStack   = regexp.MustCompile(`(?s)panic: .*goroutine \d+ \[`)
	testTimeout      = regexp.MustCompile(`(?i)test timed out after`)
	buildFailed      = regexp.MustCompile(`\[(build|setup) failed\]`)
)

// selfExplanatory reports whether a failed simulation explains itself, so
// its output can go back to the implementer verbatim (ASSERT-CODE-002):
// a compile error, or failing tests that each show an assertion diff
// (got/want, expected/actual), a panic with its stack or a test timeout.
// Anything else (a bare "FAIL", a non-zero exit without a reason) is not.
func selfExplanatory(res domain.SimulateResult) bool {
	for _, d := range res.Diagnostics {
		if d.Category == domain.CategorySyntaxError || d.Category == domain.CategoryTypeError {
			return true
		}
	}
	if buildFailed.MatchString(res.Output) {
		return true
	}
	failing := failingTests(res)
	if len(failing) == 0 {
		return explains(res.Output)
	}
	for _, t := range failing {
		if !explains(t.Output) {
			return false
		}
	}
	return true
}

func explains(out string) bool {
	return assertionGotWant.MatchString(out) || assertionExpAct.MatchString(out) ||
		panicWithStack.MatchString(out) || testTimeout.MatchString(out)
}

// failingTests returns the failed leaf tests (a parent failing only because
// a subtest failed is left out).
func failingTests(res domain.SimulateResult) []domain.TestResult {
	var out []domain.TestResult
	for _, t := range res.Tests {
		if t.Passed {
			continue
		}
		leaf := true
		for _, o := range res.Tests {
			if !o.Passed && o.Package == t.Package && strings.HasPrefix(o.Name, t.Name+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			out = append(out, t)
		}
	}
	return out
}

// maxVerbatim bounds the simulation output fed back (its tail is kept).
const maxVerbatim = 16 << 10

// failureOutput is the output of the failing tests, or the whole run's
// output when no test failed individually (a package that did not build).
func failureOutput(res domain.SimulateResult) string {
	var b strings.Builder
	for _, t := range failingTests(res) {
		fmt.Fprintf(&b, "--- %s (%s)\n%s", t.Name, t.Package, t.Output)
		if !strings.HasSuffix(t.Output, "\n") {
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
