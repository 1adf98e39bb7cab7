package stages

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/review"
)

// oneLine renders untrusted s (issue or LLM text) on one line, inert (see
// audit.Untrusted).
func oneLine(s string) string { return audit.Untrusted(strings.Join(strings.Fields(s), " ")) }

// cellText renders untrusted s inside a Markdown table cell: one line,
// pipes escaped and backquotes neutralised so the cell cannot break out.
func cellText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(oneLine(s), "|", `\|`), "`", "'")
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// errorLines splits an errors.Join result into one message per error.
func errorLines(err error) []string {
	if err == nil {
		return nil
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		var out []string
		for _, e := range joined.Unwrap() {
			out = append(out, errorLines(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// findingLines renders findings one per line as "file:line [severity]
// (criterion): explanation". Findings are LLM output: every part is made
// inert (audit.Untrusted).
func findingLines(fs []review.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		loc := firstSet(f.File, "(no file)")
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		line := fmt.Sprintf("%s [%s]", oneLine(loc), oneLine(string(f.Severity)))
		if f.Criterion != "" {
			line += " (" + oneLine(f.Criterion) + ")"
		}
		out = append(out, line+": "+oneLine(f.Explanation))
	}
	return out
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func writeList(b *strings.Builder, heading string, items []string) {
	fmt.Fprintf(b, "## %s\n\n", heading)
	if len(items) == 0 {
		b.WriteString("- (none)\n\n")
		return
	}
	for _, it := range items {
		fmt.Fprintf(b, "- `%s`\n", audit.Untrusted(strings.ReplaceAll(it, "`", "'")))
	}
	b.WriteString("\n")
}
