package stages

import (
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
)

// oneLine renders untrusted s (issue or LLM text) on one line, inert (see
// audit.Untrusted).
func oneLine(s string) string { return audit.Untrusted(strings.Join(strings.Fields(s), " ")) }

// cellText renders untrusted s inside a Markdown table cell: one line,
// pipes escaped and backquotes neutralised so the cell cannot break out.
func cellText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(oneLine(s), "|", `\|`), "`", "'")
}
