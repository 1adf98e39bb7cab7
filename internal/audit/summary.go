package audit

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Limits of what a public report quotes of tool output. The whole output
// goes to the implementer (the LLM, after redaction) only: a public
// comment gets its head, its diagnostics and counts, so a failing test
// that prints a secret, or megabytes of noise, is not published whole.
const (
	// SummaryLines is how many leading lines of an output are quoted.
	SummaryLines = 20
	// SummaryDiagnostics is how many further "file:line: message" lines
	// are quoted from the rest of an output.
	SummaryDiagnostics = 20
	// SummaryLineBytes caps one quoted line.
	SummaryLineBytes = 240
	// MaxReportBytes caps the attempts section of a failure report.
	MaxReportBytes = 8 << 10
)

// diagnosticLine matches a compiler or test diagnostic: "file.go:12: msg"
// or "file.go:12:5: msg", indented or not.
var diagnosticLine = regexp.MustCompile(`^\s*[\w./-]+\.\w+:\d+(?::\d+)?: \S`)

// Summarize shortens tool output for a public report: its first
// SummaryLines lines, then up to SummaryDiagnostics diagnostic lines
// (file:line: message) from the rest, each line capped at
// SummaryLineBytes, and a last line counting what was left out.
func Summarize(output string) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	var kept []string
	for _, l := range lines[:min(len(lines), SummaryLines)] {
		kept = append(kept, capLine(l))
	}
	omitted, diags := 0, 0
	for _, l := range lines[min(len(lines), SummaryLines):] {
		if diags < SummaryDiagnostics && diagnosticLine.MatchString(l) {
			kept = append(kept, capLine(l))
			diags++
			continue
		}
		omitted++
	}
	if omitted > 0 {
		kept = append(kept, fmt.Sprintf("… %d more lines not shown (%d lines in all)", omitted, len(lines)))
	}
	return strings.Join(kept, "\n")
}

// capLine cuts a line to SummaryLineBytes on a rune boundary.
func capLine(l string) string {
	if len(l) <= SummaryLineBytes {
		return l
	}
	cut := SummaryLineBytes
	for cut > 0 && !utf8.RuneStart(l[cut]) {
		cut--
	}
	return l[:cut] + fmt.Sprintf(" … (%d bytes cut)", len(l)-cut)
}

// Cap bounds a report body rendered from tool or judge output (a
// scenario validation's details) to MaxReportBytes: whole lines, each
// capped at SummaryLineBytes unless it is a Markdown table row, then a
// last line counting what was left out.
func Cap(body string) string {
	lines := strings.Split(body, "\n")
	var b strings.Builder
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			l = capLine(l)
		}
		if b.Len()+len(l)+1 > MaxReportBytes {
			fmt.Fprintf(&b, "\n_… %d more lines not shown: the report is capped at %d KiB._\n", len(lines)-i, MaxReportBytes>>10)
			return b.String()
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}
