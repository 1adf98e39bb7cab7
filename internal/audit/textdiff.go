package audit

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/linediff"
)

// maxDiffLines bounds each side of a TextDiff: the diff is quadratic in
// lines and lands in a comment of at most 65,536 characters.
const maxDiffLines = 300

// TextDiff renders the line changes from old to new as a fenced `diff`
// block for a comment: removed lines prefixed "-", added "+", unchanged
// ones " ". The text is untrusted (an issue's author wrote it), so it goes
// through Untrusted and a fence longer than any backtick run in it. Texts
// longer than maxDiffLines lines are not compared line by line; the block
// then says so.
func TextDiff(old, new string) string {
	a, b := splitLines(old), splitLines(new)
	var lines []string
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		lines = []string{fmt.Sprintf("(%d lines before, %d after: too long to compare here; see the issue's edit history)", len(a), len(b))}
	} else {
		lines = diffLines(a, b)
	}
	text := Untrusted(strings.Join(lines, "\n"))
	fence := codeFence(text)
	return fence + "diff\n" + text + "\n" + fence
}

func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines is the line diff of a and b (linediff.Diff), one "-", "+"
// or " " line per line.
func diffLines(a, b []string) []string {
	ops := linediff.Diff(a, b)
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op.String()
	}
	return out
}
