package cifeedback

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

var (
	// timestamp is the prefix GitHub Actions writes on every log line.
	timestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?`)
	ansi      = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")
)

// logLines splits a job log into lines without GitHub's timestamps,
// colour codes or carriage returns.
func logLines(log string) []string {
	if log == "" {
		return nil
	}
	lines := strings.Split(strings.ReplaceAll(log, "\r\n", "\n"), "\n")
	for i, l := range lines {
		l = timestamp.ReplaceAllString(l, "")
		l = ansi.ReplaceAllString(l, "")
		lines[i] = strings.TrimRight(l, "\r ")
	}
	return lines
}

// testPatterns find failing test names in the output of the test runners
// CogWorks's presets use; group 1 is the name.
var testPatterns = []*regexp.Regexp{
	regexp.MustCompile(`^\s*--- FAIL: (\S+)`),                                                            // go test
	regexp.MustCompile(`^FAILED (\S+?)(?: - .*)?$`),                                                      // pytest -ra / short summary
	regexp.MustCompile(`^test (\S+) \.\.\. FAILED$`),                                                     // cargo test
	regexp.MustCompile(`^\s*(?:FAIL|×|❯)\s+(\S+\.(?:test|spec)\.[cm]?[jt]sx?\s+>\s+.+?)(?:\s+\d+m?s)?$`), // vitest
	regexp.MustCompile(`^\s*[✕×]\s+(.+?)(?:\s+\(?\d+(?:\.\d+)?\s*m?s\)?)?$`),                             // jest / vitest list
	regexp.MustCompile(`^\s*●\s+(.+›.+?)\s*$`),                                                           // jest failure heading
	regexp.MustCompile(`^\[ERROR\]\s+(?:\S+\.)?(\w+\.\w+)(?::\d+)? `),                                    // maven surefire summary
	regexp.MustCompile(`^(\S+ > \S.*?) FAILED$`),                                                         // gradle
}

// maxTests bounds the test names listed per check.
const maxTests = 30

// failingTests lists the failing tests lines name, once each, in order.
func failingTests(lines []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lines {
		for _, re := range testPatterns {
			m := re.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			name := strings.TrimSpace(m[1])
			if !seen[name] && len(out) < maxTests {
				seen[name] = true
				out = append(out, name)
			}
			break
		}
	}
	// jest and vitest name a failing test twice: "test" or "suite > test"
	// in their list, and "suite › test" or "file > suite > test" in
	// their summary; keep the longer.
	all := slices.Clone(out)
	return slices.DeleteFunc(out, func(n string) bool {
		return slices.ContainsFunc(all, func(m string) bool {
			return strings.HasSuffix(m, " > "+n) || strings.HasSuffix(m, " › "+n)
		})
	})
}

// errorLine matches the lines worth showing: test failures, compiler and
// linter diagnostics, assertion output, panics and GitHub's ##[error].
var errorLine = regexp.MustCompile(`^\s*--- FAIL:|^FAIL\s|^FAILED |^##\[error\]|^panic: |\.go:\d+(:\d+)?: |\.py:\d+: |\.[cm]?[jt]sx?:\d+:\d+|` +
	`^E\s{2,}|^\s*(Error|error|AssertionError|assert)[:\[ ]|^error\[E\d+\]|^test \S+ \.\.\. FAILED$|^\s*[✕×●]\s|` +
	`^\s*(Expected|Received|expected|actual|got|want)\b|^thread '.*' panicked at|^\[ERROR\] |<<< FAILURE!|` +
	`^\S+ > \S.* FAILED$|Error at \S+\.java:\d+|^\s+at \S+\(\S+\.java:\d+\)`)

const (
	// contextAfter is how many lines follow each error line.
	contextAfter = 2
	// maxLineLen cuts each excerpt line.
	maxLineLen = 300
	// maxExcerptLines bounds one check's excerpt; a log with no error
	// line gives its last tailLines.
	maxExcerptLines = 80
	tailLines       = 30
)

// excerpt picks the error lines of a log with a little context.
func excerpt(lines []string) string {
	keep := make([]bool, len(lines))
	found := false
	for i, l := range lines {
		if errorLine.MatchString(l) {
			found = true
			for j := i; j < len(lines) && j <= i+contextAfter; j++ {
				keep[j] = true
			}
		}
	}
	if !found {
		for i := max(0, len(lines)-tailLines); i < len(lines); i++ {
			keep[i] = true
		}
	}
	var out []string
	gap := false
	for i, l := range lines {
		if !keep[i] || strings.HasPrefix(l, "##[group]") || strings.HasPrefix(l, "##[endgroup]") || strings.TrimSpace(l) == "" {
			gap = gap || !keep[i]
			continue
		}
		if len(out) == maxExcerptLines {
			out = append(out, "[… more lines cut]")
			break
		}
		if gap && len(out) > 0 {
			out = append(out, "…")
		}
		gap = false
		l = strings.TrimPrefix(l, "##[error]")
		if len(l) > maxLineLen {
			n := maxLineLen
			for n > 0 && !utf8.RuneStart(l[n]) {
				n--
			}
			l = l[:n] + " [… cut]"
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
