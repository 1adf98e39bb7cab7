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
//
// It also keeps the text from acting on people: a word joiner after the
// "@" of every mention ("@user", "@org/team") keeps it readable while
// GitHub notifies nobody, and one after the "/" of a line starting with
// "/cogworks" keeps the command parser (package commands) from reading a
// command the bot never meant. The bot's own deliberate mentions (the
// reply to a command's author, "approved by @…") are written outside
// Untrusted and keep working. Direction controls are removed (StripBidi),
// so the text reads in the order it is stored.
func Untrusted(s string) string {
	s = StripBidi(s)
	s = strings.ReplaceAll(s, "--!>", "--"+wordJoiner+"!>")
	s = strings.ReplaceAll(s, "-->", "--"+wordJoiner+">")
	return defuseCommands(defuseMentions(defuseOpeners(s)))
}

// defuseMentions inserts a word joiner after every "@" GitHub would read
// as a mention: one not preceded by a letter, digit or underscore (an
// e-mail address or "pkg@v1" is no mention) and followed by a letter or
// digit (a login or organisation starts so).
func defuseMentions(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if s[i] == '@' && i+1 < len(s) && isASCIIAlnum(s[i+1]) && (i == 0 || !isWordByte(s[i-1])) {
			b.WriteString(wordJoiner)
		}
	}
	return b.String()
}

// isWordByte reports an ASCII letter, digit or underscore: after one, an
// "@" is part of a word (an e-mail address, "pkg@v1"), not a mention.
func isWordByte(c byte) bool {
	return isASCIIAlnum(c) || c == '_'
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// commandWord is commands.Prefix without its slash; audit stays free of
// the commands package, whose parser this defeats.
const commandWord = "cogworks"

// defuseCommands inserts a word joiner after the "/" of every line whose
// first non-blank text is "/cogworks" in any case, and of any quoted
// ("> /cogworks") line, whatever the indentation.
func defuseCommands(s string) string {
	lower := asciiLower(s)
	if !strings.Contains(lower, "/"+commandWord) {
		return s
	}
	var b strings.Builder
	start := 0
	for start <= len(s) {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line, lowerLine := s[start:end], lower[start:end]
		lead := len(lowerLine) - len(strings.TrimLeft(lowerLine, " \t>"))
		if strings.HasPrefix(lowerLine[lead:], "/"+commandWord) {
			line = line[:lead+1] + wordJoiner + line[lead+1:]
		}
		b.WriteString(line)
		if end < len(s) {
			b.WriteByte('\n')
		}
		start = end + 1
	}
	return b.String()
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
		b.WriteString("| " + cell(string(e.Kind)) + " | " + cell(e.Stage) + " | " + cell(e.SWI) + " | " + cell(e.Summary) + " |\n")
	}
	return b.String()
}
