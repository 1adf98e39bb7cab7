package stagekit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/review"
)

// OneLine renders untrusted s (issue or LLM text) on one line, inert (see
// audit.Untrusted).
func OneLine(s string) string { return audit.Untrusted(strings.Join(strings.Fields(s), " ")) }

// CellText renders untrusted s inside a Markdown table cell: one line,
// pipes escaped and backquotes neutralised so the cell cannot break out.
func CellText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(OneLine(s), "|", `\|`), "`", "'")
}

// NonEmpty returns ss without its empty strings.
func NonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// ErrorLines splits an errors.Join result into one message per error.
func ErrorLines(err error) []string {
	if err == nil {
		return nil
	}
	var joined interface{ Unwrap() []error }
	if errors.As(err, &joined) {
		var out []string
		for _, e := range joined.Unwrap() {
			out = append(out, ErrorLines(e)...)
		}
		return out
	}
	return []string{err.Error()}
}

// FindingLines renders findings one per line as "file:line [severity]
// (criterion): explanation". Findings are LLM output: every part is made
// inert (audit.Untrusted).
func FindingLines(fs []review.Finding) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		loc := FirstSet(f.File, "(no file)")
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
		}
		line := fmt.Sprintf("%s [%s]", OneLine(loc), OneLine(string(f.Severity)))
		if f.Criterion != "" {
			line += " (" + OneLine(f.Criterion) + ")"
		}
		out = append(out, line+": "+OneLine(f.Explanation))
	}
	return out
}

// FirstSet returns the first non-empty string of vs, or "".
func FirstSet(vs ...string) string {
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
