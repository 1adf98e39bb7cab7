package codegen

import (
	"path"
	"regexp"
	"strings"
)

// Feedback for the two first-answer mistakes that each cost an attempt on
// real fixes (issue 27): an edit addressed to a path that does not exist
// (usually the right file in the wrong directory), and an `old` text that
// elides lines with a marker instead of quoting them. Both rules are
// language neutral: paths are compared as strings, and the markers are the
// comment forms of every language CogWorks serves.

// NearestPath returns the existing file that a missing path most likely
// meant, "" when none is close: first a file with the same base name (the
// right file in the wrong directory; among several, the one whose whole
// path is closest), else one of the same extension whose base name is a
// small edit away (a misspelt or re-guessed file name). files are the
// repository's paths the answer may address.
func NearestPath(missing string, files []string) string {
	missing = path.Clean(missing)
	base, ext := path.Base(missing), path.Ext(missing)
	best, bestBase, bestPath := "", -1, 0
	limit := max(1, len([]rune(base))/4)
	for _, f := range files {
		if f == missing {
			continue
		}
		fb := path.Base(f)
		var d int
		switch {
		case fb == base:
			d = 0
		case path.Ext(fb) != ext:
			continue
		default:
			if d = editDistance(fb, base); d > limit {
				continue
			}
		}
		pd := editDistance(f, missing)
		if best == "" || d < bestBase || d == bestBase && (pd < bestPath || pd == bestPath && f < best) {
			best, bestBase, bestPath = f, d, pd
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// missingFile is the feedback for a path that does not exist: it names the
// nearest existing path when there is one.
func missingFile(what, p string, files func() []string) string {
	msg := what + ": the file does not exist"
	if near := NearestPath(p, files()); near != "" {
		msg += "; the nearest existing path is `" + near + "` — address it by that exact path if you meant it"
	}
	return msg
}

// elisionPhrase matches the words of a comment that stands for omitted
// code ("rest of the file unchanged", "existing code", "... omitted").
var elisionPhrase = regexp.MustCompile(`(?i)(existing (code|imports?|implementation|methods?|functions?|fields?|tests?|logic|content|body)|rest of (the )?(file|code|function|method|class|module|body|implementation|imports|tests|struct|impl)|\b(remains?|stays?|is|are|left|kept) (the same|unchanged|as is)|\bunchanged\b|same as (before|above|original)|\b(omitted|elided|snipped)\b|\bsnip\b)`)

// commentOpeners and commentClosers are the line-comment and block-comment
// delimiters of the languages served (Go, Rust, TypeScript/JavaScript,
// Java, C: // and /* */; Python, shell, TOML, YAML: #; SQL, Lua: --;
// HTML and Markdown: <!-- -->; JSX: {/* */}), longest first.
var (
	commentOpeners = []string{"{/*", "<!--", "///", "//!", "//", "/**", "/*", "*", "#", "--", ";"}
	commentClosers = []string{"*/}", "-->", "*/"}
)

// ElisionMarker returns the first line of old that stands for omitted
// code (`// ... existing code ...`, `# ...`, `/* ... */`, a line of `...`,
// "rest of the file unchanged") and is not a line of the file itself
// (content), "" when there is none. Such an `old` can never match: the
// model must quote every line it replaces.
func ElisionMarker(old, content string) string {
	var have map[string]bool
	for _, l := range strings.Split(old, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || !isElision(t) {
			continue
		}
		if have == nil {
			have = map[string]bool{}
			for _, c := range strings.Split(content, "\n") {
				have[strings.TrimSpace(c)] = true
			}
		}
		if !have[t] { // a Python stub's `...` body is code, not a marker
			return t
		}
	}
	return ""
}

// isElision reports whether one trimmed line is an elision marker.
func isElision(t string) bool {
	if isEllipsis(t) || strings.HasPrefix(t, "⋮") { // ⋮ is CogWorks's own mark of lines a focused file leaves out
		return true
	}
	body, ok := commentBody(t)
	if !ok {
		return false
	}
	return isEllipsis(body) || strings.HasPrefix(body, "...") || strings.HasPrefix(body, "…") ||
		elisionPhrase.MatchString(body)
}

// isEllipsis reports whether s is only an ellipsis, bracketed or not.
func isEllipsis(s string) bool {
	s = strings.Trim(strings.TrimSpace(s), "[](){}<> ")
	return s == "…" || len(s) >= 3 && strings.Trim(s, ".") == ""
}

// commentBody returns the text of a line that is a comment alone.
func commentBody(t string) (string, bool) {
	for _, o := range commentOpeners {
		if !strings.HasPrefix(t, o) {
			continue
		}
		body := strings.TrimSpace(t[len(o):])
		for _, c := range commentClosers {
			body = strings.TrimSpace(strings.TrimSuffix(body, c))
		}
		return body, true
	}
	return "", false
}

// newElisionPhrase matches the comments that, in `new`, can only stand
// for code the model left out: stricter than in `old`, since `new` may
// legitimately bring a comment saying something is "unchanged".
var newElisionPhrase = regexp.MustCompile(`(?i)^(rest of (the )?(file|code|function|method|class|module|body|implementation|struct|impl)|existing (code|implementation|imports|methods|functions|fields|tests))\b`)

// NewElisionMarker returns the first line of new that stands for omitted
// code — a comment of only an ellipsis or starting with one
// (`// ... existing code ...`, `# ...`), "rest of the file", "existing
// code", or CogWorks's own ⋮ — and is neither in old nor in the file
// (content), "" when there is none. Such an edit applies, and deletes the
// code the marker stands for. A bare `...` line is not a marker here: it
// is Python's (a stub's body) and JavaScript's.
func NewElisionMarker(newText, old, content string) string {
	for _, l := range strings.Split(newText, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.Contains(old, t) || strings.Contains(content, t) {
			continue
		}
		if strings.HasPrefix(t, "⋮") {
			return t
		}
		body, ok := commentBody(t)
		if ok && (isEllipsis(body) || strings.HasPrefix(body, "...") || strings.HasPrefix(body, "…") || newElisionPhrase.MatchString(body)) {
			return t
		}
	}
	return ""
}

// elidedNew is the feedback for a `new` that elides lines.
func elidedNew(where, marker string) string {
	return where + ": `new` contains an elision marker (`" + marker + "`); elision markers are not allowed: `new` replaces `old` exactly as written, " +
		"so the marker would replace the code it stands for — write every line of `new` in full, or make `old` smaller"
}

// elidedOld is the feedback for an `old` that does not occur because it
// elides lines.
func elidedOld(where, marker string) string {
	return where + ": `old` contains an elision marker (`" + marker + "`); elision markers are not allowed: `old` must be the exact text of the file, " +
		"every line quoted in full — to change lines far apart, use one edit for each"
}
