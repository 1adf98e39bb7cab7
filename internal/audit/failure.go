package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/pipeline"
)

// Attempt is one executor attempt in a failure report; it is the
// escalation vocabulary's type, so an escalation's attempts are listed as
// they are.
type Attempt = escalation.Attempt

// Failure is what a failure report says (ASSERT-PSM-006).
type Failure struct {
	WorkItem int
	Stage    string
	SWI      string
	Reason   string
	Attempts []Attempt
	// Configuration, when set, says what to configure: the stage could
	// not run at all (no domain service covers the change), so there are
	// no attempts to list.
	Configuration string
	// Cost, when set, appends the cost table.
	Cost *CostSummary
}

// FailureKey is the key of the failure report of a stage.
func FailureKey(workItem int, stage string) string {
	return Key(strconv.Itoa(workItem), "failure", stage)
}

// FailureReport renders the structured report posted when the pipeline
// halts: stage, SWI, reason, how to resume, every attempt with its
// diagnostics, and the cost so far. Key "<N>/failure/<stage>".
// Diagnostics are summarised (see Summarize) and the attempts section is
// capped at MaxReportBytes: the full tool output went to the implementer,
// a public comment never quotes it whole.
func FailureReport(f Failure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Stage:** %s", code(f.Stage))
	if f.SWI != "" {
		fmt.Fprintf(&b, " · **Sub-work-item:** %s", code(f.SWI))
	}
	reason := strings.TrimSpace(f.Reason)
	if reason == "" {
		reason = "no reason recorded"
	}
	fmt.Fprintf(&b, "\n\n**Reason:** %s\n\n", oneLine(reason))
	fmt.Fprintf(&b, "The pipeline is halted and labelled `%s`. Fix the cause, then apply `%s` to resume at this stage.\n\n",
		pipeline.StageLabel(pipeline.StageFailed), pipeline.LabelRetry)
	if c := strings.TrimSpace(f.Configuration); c != "" {
		fmt.Fprintf(&b, "#### What to configure\n\n%s\n\n", c)
	}
	if len(f.Attempts) > 0 || f.Configuration == "" {
		fmt.Fprintf(&b, "#### Attempts (%d)\n\n", len(f.Attempts))
		if len(f.Attempts) == 0 {
			b.WriteString("_No attempt was recorded._\n\n")
		}
		b.WriteString(attemptsSection(f.Attempts))
	}
	if f.Cost != nil {
		b.WriteString("#### Cost\n\n")
		b.WriteString(CostTable(f.Cost.Ledger, f.Cost.SubWorkItems, f.Cost.BudgetTokens, f.Cost.BudgetUSD))
	}
	title := "pipeline halted at " + f.Stage // Format makes the title inert
	if f.SWI != "" {
		title += " (" + f.SWI + ")"
	}
	return Format(Comment{Key: FailureKey(f.WorkItem, f.Stage), Title: title, Body: b.String()})
}

// codeFence returns a backtick fence longer than any backtick run in s.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// attemptsSection lists the attempts with their summarised diagnostics,
// up to MaxReportBytes; what does not fit is counted, not shown.
func attemptsSection(attempts []Attempt) string {
	var b strings.Builder
	left := 0
	for i, a := range attempts {
		var ab strings.Builder
		fmt.Fprintf(&ab, "**Attempt %d**", a.N)
		if s := strings.TrimSpace(a.Summary); s != "" {
			fmt.Fprintf(&ab, " — %s", capLine(oneLine(s)))
		}
		if n := len(a.Diagnostics); n > 1 {
			fmt.Fprintf(&ab, " (%d diagnostics)", n)
		}
		ab.WriteString("\n\n")
		if len(a.Diagnostics) == 0 {
			ab.WriteString("_No diagnostics._\n\n")
		}
		if b.Len()+ab.Len() > MaxReportBytes {
			left = len(attempts) - i
			break
		}
		b.WriteString(ab.String())
		shown := 0
		for _, d := range a.Diagnostics {
			item := diagnosticItem(d)
			if b.Len()+len(item) > MaxReportBytes {
				break
			}
			b.WriteString(item)
			shown++
		}
		if rest := len(a.Diagnostics) - shown; rest > 0 {
			fmt.Fprintf(&b, "- _%d more diagnostics not shown: the report is capped at %d KiB._\n", rest, MaxReportBytes>>10)
		}
		if len(a.Diagnostics) > 0 {
			b.WriteString("\n")
		}
	}
	if left > 0 {
		fmt.Fprintf(&b, "_%d more attempts not shown: the report is capped at %d KiB._\n\n", left, MaxReportBytes>>10)
	}
	return b.String()
}

// diagnosticItem renders one summarised diagnostic as a list item, in a
// code fence when it spans lines.
func diagnosticItem(d string) string {
	d = Untrusted(Summarize(strings.TrimRight(d, "\n")))
	if strings.Contains(d, "\n") {
		fence := codeFence(d)
		return fmt.Sprintf("- diagnostic:\n\n  %s\n  %s\n  %s\n", fence, strings.ReplaceAll(d, "\n", "\n  "), fence)
	}
	return fmt.Sprintf("- %s\n", d)
}
