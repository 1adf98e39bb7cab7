package scenario

import (
	"fmt"
	"strings"
)

// Feedback renders the remediation text handed back to code generation when
// validation fails: which scenario, which criterion and why. It never
// includes a scenario's description, source or overlay test code (holdout).
// It is empty when validation passed or was skipped.
func (r Result) Feedback() string {
	if r.Passed {
		return ""
	}
	var b strings.Builder
	b.WriteString("Scenario validation failed.\n")
	if r.Overall < r.Threshold {
		fmt.Fprintf(&b, "Overall satisfaction %.2f (%d of %d trajectories) is below the required %.2f.\n",
			r.Overall, r.Satisfied, r.Total, r.Threshold)
	}
	if len(r.FailureHits) > 0 {
		b.WriteString("\nExplicit failure criteria were hit; this fails validation whatever the score:\n")
		for _, h := range r.FailureHits {
			fmt.Fprintf(&b, "- %s\n", h)
		}
	}
	for _, s := range r.Scenarios {
		if s.Satisfied == s.Trajectories {
			continue
		}
		fmt.Fprintf(&b, "\nScenario %s: %d of %d trajectories satisfied (score %.2f).\n", s.ID, s.Satisfied, s.Trajectories, s.Score)
		for _, f := range s.Failures {
			fmt.Fprintf(&b, "- %s\n", f)
		}
		if len(s.FailedTests) > 0 {
			fmt.Fprintf(&b, "- failing tests: %s\n", strings.Join(s.FailedTests, ", "))
		}
	}
	return b.String()
}

// AuditMarkdown renders the validation for the audit trail: the decision,
// overall score against the threshold, per-scenario scores, trajectory
// counts, trust labels, failure criteria hits and failure details
// (ASSERT-SCEN-010).
func (r Result) AuditMarkdown() string {
	var b strings.Builder
	b.WriteString("### Scenario validation\n\n")
	if r.Skipped {
		fmt.Fprintf(&b, "**Skipped** — %s.\n", r.SkipReason)
		b.WriteString(r.selectionMarkdown())
		return b.String()
	}
	verdict := "Passed"
	if !r.Passed {
		verdict = "Failed"
	}
	fmt.Fprintf(&b, "**%s** — overall satisfaction **%.2f** (%d of %d trajectories satisfied), threshold %.2f.\n\n",
		verdict, r.Overall, r.Satisfied, r.Total, r.Threshold)
	b.WriteString("| Scenario | Score | Satisfied | Trajectories | Trust |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, s := range r.Scenarios {
		trust := string(s.Trust.Label)
		if s.Trust.Runs > 0 {
			trust = fmt.Sprintf("%s (%.2f over %d runs)", s.Trust.Label, s.Trust.Score, s.Trust.Runs)
		}
		fmt.Fprintf(&b, "| %s | %.2f | %d | %d | %s |\n", cell(s.ID), s.Score, s.Satisfied, s.Trajectories, trust)
	}
	if len(r.FailureHits) > 0 {
		b.WriteString("\n**Failure criteria hit** (validation fails whatever the score):\n\n")
		for _, h := range r.FailureHits {
			fmt.Fprintf(&b, "- %s\n", h)
		}
	}
	var details []string
	for _, s := range r.Scenarios {
		for _, f := range s.Failures {
			details = append(details, fmt.Sprintf("- %s: %s", s.ID, f))
		}
		if len(s.FailedTests) > 0 {
			details = append(details, fmt.Sprintf("- %s: failing tests: %s", s.ID, strings.Join(s.FailedTests, ", ")))
		}
	}
	if len(details) > 0 {
		b.WriteString("\n**Failure details:**\n\n")
		b.WriteString(strings.Join(details, "\n"))
		b.WriteString("\n")
	}
	b.WriteString(r.selectionMarkdown())
	if len(r.Warnings) > 0 {
		b.WriteString("\n**Warnings:**\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	return b.String()
}

// selectionMarkdown lists why each scenario ran or did not apply.
func (r Result) selectionMarkdown() string {
	var b strings.Builder
	if len(r.Ran) > 0 {
		b.WriteString("\n**Ran** (chosen from what the change touches):\n\n")
		for _, l := range r.Ran {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if len(r.NotApplied) > 0 {
		b.WriteString("\n**Did not apply:**\n\n")
		for _, l := range r.NotApplied {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	return b.String()
}

// SelectionSummary is one sentence naming the scenarios that ran and why
// the others did not apply, "" when there were none.
func (r Result) SelectionSummary() string {
	var parts []string
	if len(r.Ran) > 0 {
		parts = append(parts, "Ran "+strings.Join(r.Ran, "; ")+".")
	}
	if len(r.NotApplied) > 0 {
		parts = append(parts, "Did not apply: "+strings.Join(r.NotApplied, "; ")+".")
	}
	return strings.Join(parts, " ")
}

// cell escapes a value for a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
