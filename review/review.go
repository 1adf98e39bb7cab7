package review

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/finding"
)

// Pass names used by the review stage. The constraint pass runs first and
// costs no tokens (ASSERT-XVAL-003).
const (
	PassConstraints  = "cross-domain-constraints"
	PassQuality      = "code-quality"
	PassArchitecture = "architecture-compliance"
	PassSecurity     = "security"
)

// Finding is one review finding at a file and line.
type Finding struct {
	File        string           `json:"file"`
	Line        int              `json:"line" jsonschema:"minimum=0"`
	Severity    finding.Severity `json:"severity" jsonschema:"enum=blocking,enum=warning,enum=informational"`
	Criterion   string           `json:"criterion"`
	Explanation string           `json:"explanation"`
}

// Pass is the output of one review pass. Name is set by the caller (it is
// optional in the LLM's output).
type Pass struct {
	Name     string    `json:"name,omitempty"`
	Passed   bool      `json:"passed"`
	Findings []Finding `json:"findings"`
}

// Decision is the aggregate verdict.
type Decision string

// Aggregate decisions.
const (
	DecisionProceed   Decision = "proceed"
	DecisionRemediate Decision = "remediate"
)

// Result is the aggregate of all review passes.
type Result struct {
	Decision    Decision  `json:"decision"`
	Blocking    []Finding `json:"blocking,omitempty"`
	NonBlocking []Finding `json:"non_blocking,omitempty"`
	Passes      []Pass    `json:"passes"`
}

// Aggregate combines review passes. Any blocking finding in any pass ⇒
// remediate (ASSERT-REVIEW-001); only warnings and informational findings ⇒
// proceed with all of them kept (ASSERT-REVIEW-002); every pass appears in
// Result.Passes in input order (ASSERT-REVIEW-003). A finding with an
// unknown severity is treated as blocking: a malformed verdict must not let
// code through. A pass that reports Passed=false without any blocking
// finding is also treated as blocking, with a synthetic finding naming it.
func Aggregate(passes []Pass) Result {
	res := Result{Decision: DecisionProceed, Passes: append([]Pass(nil), passes...)}
	for _, p := range passes {
		blocked := false
		for _, f := range p.Findings {
			switch f.Severity {
			case finding.Warning, finding.Informational:
				res.NonBlocking = append(res.NonBlocking, f)
			default:
				blocked = true
				res.Blocking = append(res.Blocking, f)
			}
		}
		if !p.Passed && !blocked {
			res.Blocking = append(res.Blocking, Finding{
				Severity:    finding.Blocking,
				Criterion:   p.Name,
				Explanation: fmt.Sprintf("review pass %q did not pass but reported no blocking finding", p.Name),
			})
		}
	}
	if len(res.Blocking) > 0 {
		res.Decision = DecisionRemediate
	}
	return res
}

// ActionKind is what the pipeline does after review.
type ActionKind string

// Action kinds.
const (
	ActionProceed   ActionKind = "proceed"
	ActionRemediate ActionKind = "remediate"
	ActionEscalate  ActionKind = "escalate"
)

// Action is the next step after review. Feedback is the rendered list of
// blocking findings (for remediation it goes to code generation; for an
// escalation it goes into the failure report).
type Action struct {
	Kind     ActionKind `json:"kind"`
	Feedback string     `json:"feedback,omitempty"`
}

// NextAction decides what follows a review. cycles is the number of
// remediation cycles already spent on this sub-work-item. A proceed result
// proceeds; a remediate result goes back to code generation with the
// blocking findings as feedback (ASSERT-REVIEW-004) while cycles <
// maxCycles, and escalates once cycles ≥ maxCycles (ASSERT-REVIEW-005).
func NextAction(result Result, cycles, maxCycles int) Action {
	if result.Decision != DecisionRemediate && len(result.Blocking) == 0 {
		return Action{Kind: ActionProceed}
	}
	fb := RenderFeedback(result.Blocking)
	if cycles >= maxCycles {
		return Action{
			Kind:     ActionEscalate,
			Feedback: fmt.Sprintf("Blocking review findings remain after %d of %d remediation cycles.\n\n%s", cycles, maxCycles, fb),
		}
	}
	return Action{Kind: ActionRemediate, Feedback: fb}
}

// RenderFeedback renders findings as a Markdown list for the code
// generation prompt, one line per finding with file, line, severity,
// criterion and explanation.
func RenderFeedback(findings []Finding) string {
	var b strings.Builder
	b.WriteString("The review found blocking problems. Fix every one of them:\n")
	for _, f := range findings {
		loc := f.File
		if loc == "" {
			loc = "(no file)"
		}
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, f.Line)
		}
		fmt.Fprintf(&b, "- %s [%s]", loc, f.Severity)
		if f.Criterion != "" {
			fmt.Fprintf(&b, " (%s)", f.Criterion)
		}
		fmt.Fprintf(&b, ": %s\n", strings.TrimSpace(f.Explanation))
	}
	return b.String()
}
