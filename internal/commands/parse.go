package commands

import (
	"strings"
	"unicode/utf8"
)

// Prefix is the token that starts a command line.
const Prefix = "/cogworks"

// Name is a command's subcommand.
type Name string

// The commands CogWorks knows. Unknown stands for a subcommand it does not
// know (or none), which is answered with the help text.
const (
	Approve Name = "approve"
	Retry   Name = "retry"
	Stop    Name = "stop"
	Status  Name = "status"
	Help    Name = "help"
	// Fix, on the conversation of a CogWorks pull request, asks for a
	// revision of it on its writers' review threads (issue 28).
	Fix     Name = "fix"
	Unknown Name = "unknown"
)

// known are the subcommands in the order the help text lists them.
var known = []Name{Approve, Retry, Stop, Fix, Status, Help}

// maxWord bounds the unknown word kept for the reply.
const maxWord = 40

// Command is one command line of a comment.
type Command struct {
	Name Name
	// Word is the subcommand as written when Name is Unknown ("" when the
	// line held only the prefix), cut to 40 characters.
	Word string
	// Line is the 1-based line of the comment the command is on.
	Line int
}

// Mentions reports whether body may hold a command: a cheap check for an
// event payload, before anything is read from GitHub.
func Mentions(body string) bool {
	return strings.Contains(strings.ToLower(body), Prefix)
}

// Parse returns the commands in a comment body, in order.
func Parse(body string) []Command {
	var out []Command
	var fence fenceState
	inQuote := false
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	for i, raw := range lines {
		line := strings.TrimRight(raw, " \t\r")
		if fence.open {
			fence.closeOn(line)
			continue
		}
		indent, rest := indentation(line)
		switch {
		case rest == "":
			// A blank line ends a block quote's lazy continuation.
			inQuote = false
		case indent >= 4:
			// An indented code block, or the continuation of a paragraph or
			// list item; neither is a command line.
		case strings.HasPrefix(rest, ">"):
			inQuote = true
		case inQuote:
			// Lazy continuation: the line still belongs to the quote.
		case fence.openOn(rest):
		default:
			if c, ok := parseLine(rest, i+1); ok {
				out = append(out, c)
			}
		}
	}
	return out
}

// indentation returns the width of the line's leading white space (a tab
// counts to the next multiple of 4) and the rest of the line.
func indentation(line string) (int, string) {
	width := 0
	for i, r := range line {
		switch r {
		case ' ':
			width++
		case '\t':
			width += 4 - width%4
		default:
			return width, line[i:]
		}
	}
	return width, ""
}

// fenceState tracks a fenced code block (``` or ~~~, three or more).
type fenceState struct {
	open bool
	char byte
	size int
}

// openOn opens a fence when rest starts one.
func (f *fenceState) openOn(rest string) bool {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return false
	}
	n := run(rest, rest[0])
	if n < 3 {
		return false
	}
	if rest[0] == '`' && strings.Contains(rest[n:], "`") {
		return false // a backtick fence's info string has no backtick
	}
	f.open, f.char, f.size = true, rest[0], n
	return true
}

// closeOn closes the fence when line is a closing fence for it.
func (f *fenceState) closeOn(line string) {
	indent, rest := indentation(line)
	if indent >= 4 || rest == "" || rest[0] != f.char {
		return
	}
	n := run(rest, f.char)
	if n >= f.size && strings.TrimSpace(rest[n:]) == "" {
		f.open = false
	}
}

// run counts the leading repetitions of c in s.
func run(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}

// parseLine reads a command from a line without its indentation.
func parseLine(rest string, line int) (Command, bool) {
	fields := strings.Fields(rest)
	if len(fields) == 0 || !strings.EqualFold(fields[0], Prefix) {
		return Command{}, false
	}
	if len(fields) == 1 {
		return Command{Name: Unknown, Line: line}, true
	}
	word := strings.ToLower(fields[1])
	for _, n := range known {
		if word == string(n) {
			return Command{Name: n, Line: line}, true
		}
	}
	return Command{Name: Unknown, Word: cut(fields[1]), Line: line}, true
}

// cut shortens s to maxWord runes.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= maxWord {
		return s
	}
	r := []rune(s)
	return string(r[:maxWord]) + "…"
}
