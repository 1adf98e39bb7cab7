package stagekit

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/linediff"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// UnifiedDiff renders the change from old to new of the file at path as a
// unified diff ("" when they are equal). A new file (old "") is all
// additions. Reviews read this instead of whole files: a 10-line fix to a
// 2,000-line file is reviewed as 10 lines in context.
func UnifiedDiff(path, old, new string) string {
	if old == new {
		return ""
	}
	var out strings.Builder
	from := "a/" + path
	if old == "" {
		from = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ b/%s\n", from, path)
	for _, h := range linediff.Hunks(linediff.Diff(linediff.Lines(old), linediff.Lines(new)), diffContext) {
		out.WriteString(h.Header() + "\n")
		for _, op := range h.Ops {
			out.WriteString(op.String() + "\n")
		}
	}
	return out.String()
}

// SWIFileVar is a file as the prompt templates take it.
type SWIFileVar struct {
	Path    string
	Content string
}
