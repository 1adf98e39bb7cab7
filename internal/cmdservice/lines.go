package cmdservice

import (
	"regexp"
	"strconv"
	"strings"
)

// lineRE matches a compiler-style diagnostic: "file:line[:col]: message".
// The file has no spaces and no leading punctuation a prose line would
// start with.
var lineRE = regexp.MustCompile(`^([^\s:][^\s:]*):(\d+)(?::(\d+))?:?\s+(.+)$`)

// levelRE reads a leading "error:"/"warning:"/"note:" of the message.
// The code after the level (rustc's "error[E0425]", tsc's "error TS2322")
// is kept as the finding's rule: the model and the reader search by it.
var levelRE = regexp.MustCompile(`^(?i)(error|warning|note|info)(?:\[([^\]]*)\]| ([A-Z]+[0-9]+))?:\s*`)

// parseLines reads compiler-style lines (gcc, mypy, pyflakes, cargo
// --message-format short; tsc's "file(line,col):" and Maven's "[ERROR]
// file:[line,col]" are rewritten to that form first). A line with no level is an error: such tools print only what
// fails. Lines that are not diagnostics are skipped.
func parseLines(out []byte) []finding {
	var fs []finding
	for _, raw := range strings.Split(string(out), "\n") {
		line := strings.TrimRight(raw, "\r")
		line = tscRE.ReplaceAllString(line, "$1:$2:$3: ")
		line = mavenRE.ReplaceAllString(line, "$2:$3:$4: $1: ")
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		f := finding{file: m[1], level: "error", message: m[4]}
		f.line, _ = strconv.Atoi(m[2])
		if m[3] != "" {
			f.column, _ = strconv.Atoi(m[3])
		}
		if lm := levelRE.FindStringSubmatch(f.message); lm != nil {
			f.level = strings.ToLower(lm[1])
			if f.level == "info" {
				f.level = "note"
			}
			f.rule = lm[2] + lm[3]
			f.message = f.message[len(lm[0]):]
		}
		fs = append(fs, f)
	}
	return fs
}

// mavenRE matches Maven's compiler lines: "[ERROR] file:[line,col] msg".
var mavenRE = regexp.MustCompile(`^\[(ERROR|WARNING)\] (\S+):\[(\d+),(\d+)\]\s*`)

// tscRE matches tsc's "file(line,col): " prefix.
var tscRE = regexp.MustCompile(`^([^\s(]+)\((\d+),(\d+)\):\s*`)
