package audit

import (
	"fmt"
	"strings"
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

// diffLines is the longest-common-subsequence line diff of a and b.
func diffLines(a, b []string) []string {
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, " "+a[i])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, "-"+a[i])
			i++
		default:
			out = append(out, "+"+b[j])
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, "-"+a[i])
	}
	for ; j < len(b); j++ {
		out = append(out, "+"+b[j])
	}
	return out
}
