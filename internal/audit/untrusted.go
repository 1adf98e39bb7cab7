package audit

import (
	"strings"
	"unicode"
)

// wordJoiner (U+2060) is invisible and never breaks a line. Inserted into a
// sequence it keeps the text readable while no parser — GitHub's Markdown
// and HTML renderer, FindKey, pipeline.ParseSnapshot, a sub-issue marker
// search — sees the sequence any more.
const wordJoiner = "\u2060"

// markerNames are the names of CogWorks's hidden markers
// ("<!-- cogworks:key=…", "<!-- cogworks:state …", "<!-- cogworks:swi=…",
// "<!-- cogworks:plan=…", "<!-- cogworks:interfaces=…").
func markerNames() []string { return []string{"key", "state", "swi", "plan", "interfaces"} }

// Untrusted makes text from an untrusted source (issue titles and bodies,
// LLM output such as sub-work-item ids and titles, file paths,
// diagnostics, review findings, user names) inert inside a bot comment, PR
// or issue body: it can never open or close an HTML comment or spell a
// CogWorks marker, so it cannot hide text or forge state that the bot
// would later read back as its own. A word joiner is inserted into every
// "<!" (comment and declaration openers), every "-->" and "--!>"
// (comment closers) and every marker name ("cogworks:key", "cogworks:state",
// "cogworks:swi", …), and after a trailing "<", so that what the bot
// writes next cannot complete an opener. Everything else
// is kept, Markdown table pipes included (cell and code escape those).
// Untrusted is idempotent.
func Untrusted(s string) string {
	s = strings.ReplaceAll(s, "--!>", "--"+wordJoiner+"!>")
	s = strings.ReplaceAll(s, "-->", "--"+wordJoiner+">")
	return defuseOpeners(s)
}

// defuseOpeners is Untrusted without the closers: what Format applies to a
// whole comment body, which may hold the bot's own "-->" (a Mermaid
// diagram's arrows) but never a hidden block of its own (those go in
// Comment.Hidden).
func defuseOpeners(s string) string {
	s = strings.ReplaceAll(s, "<!", "<"+wordJoiner+"!")
	s = defuseMarkerNames(s)
	if strings.HasSuffix(s, "<") {
		s += wordJoiner
	}
	return s
}

// defuseMarkerNames inserts a word joiner after every "cogworks" that is
// followed by a colon and a marker name, matched case-insensitively and
// with any ASCII spacing around the colon.
func defuseMarkerNames(s string) string {
	const word = "cogworks"
	lower := asciiLower(s) // markers are ASCII; offsets must stay those of s
	var b strings.Builder
	last := 0
	for i := 0; ; {
		j := strings.Index(lower[i:], word)
		if j < 0 {
			break
		}
		end := i + j + len(word)
		if namesMarker(lower[end:]) {
			b.WriteString(s[last:end])
			b.WriteString(wordJoiner)
			last = end
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// namesMarker reports whether rest starts with a colon (spaced or not) and
// a marker name.
func namesMarker(rest string) bool {
	rest = strings.TrimLeftFunc(rest, isASCIISpace)
	rest, ok := strings.CutPrefix(rest, ":")
	if !ok {
		return false
	}
	rest = strings.TrimLeftFunc(rest, isASCIISpace)
	for _, name := range markerNames() {
		if strings.HasPrefix(rest, name) {
			return true
		}
	}
	return false
}

func isASCIISpace(r rune) bool { return r < unicode.MaxASCII && unicode.IsSpace(r) }

// asciiLower lowercases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// EventsTable renders audit events as a Markdown table.
func EventsTable(events []Event) string {
	var b strings.Builder
	b.WriteString("| kind | stage | sub-work-item | event |\n|---|---|---|---|\n")
	for _, e := range events {
		b.WriteString("| " + cell(e.Kind) + " | " + cell(e.Stage) + " | " + cell(e.SWI) + " | " + cell(e.Summary) + " |\n")
	}
	return b.String()
}
