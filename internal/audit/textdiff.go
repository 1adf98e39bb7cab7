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
	return diffBlock(lines)
}

// TextDiffHunks is TextDiff cut to the changed lines and context
// unchanged lines around each run of changes, "…" standing for the lines
// left out: the part of an amended specification a comment needs to show.
func TextDiffHunks(old, new string, context int) string {
	a, b := splitLines(old), splitLines(new)
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		return TextDiff(old, new)
	}
	lines := diffLines(a, b)
	keep := make([]bool, len(lines))
	for i, l := range lines {
		if strings.HasPrefix(l, " ") {
			continue
		}
		for j := max(0, i-context); j <= min(len(lines)-1, i+context); j++ {
			keep[j] = true
		}
	}
	var out []string
	for i, l := range lines {
		switch {
		case keep[i]:
			out = append(out, l)
		case len(out) == 0 || out[len(out)-1] != "…":
			out = append(out, "…")
		}
	}
	return diffBlock(out)
}

func diffBlock(lines []string) string {
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
