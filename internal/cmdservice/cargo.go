package cmdservice

import (
	"regexp"
	"strings"
)

// cargoResultRE matches libtest's per-test line: "test a::b ... ok".
var cargoResultRE = regexp.MustCompile(`^test (\S+) \.\.\. (ok|FAILED|ignored|ignored, .*)$`)

// cargoStdoutRE starts the captured output of a failed test.
var cargoStdoutRE = regexp.MustCompile(`^---- (\S+) stdout ----$`)

// parseCargoTest reads `cargo test` output. A test named twice (the same
// name in two targets) keeps every entry; a test reported FAILED anywhere
// has failed. Its "---- name stdout ----" section becomes its output.
func parseCargoTest(out []byte) []junitCaseResult {
	var res []junitCaseResult
	sections := map[string]*strings.Builder{}
	var current *strings.Builder
	for _, raw := range strings.Split(string(out), "\n") {
		line := strings.TrimRight(raw, "\r")
		if m := cargoResultRE.FindStringSubmatch(line); m != nil {
			current = nil
			r := junitCaseResult{name: m[1], passed: m[2] != "FAILED"}
			r.skipped = strings.HasPrefix(m[2], "ignored")
			res = append(res, r)
			continue
		}
		if m := cargoStdoutRE.FindStringSubmatch(line); m != nil {
			current = &strings.Builder{}
			sections[m[1]] = current
			continue
		}
		if current != nil {
			if strings.HasPrefix(line, "failures:") || strings.HasPrefix(line, "test result:") {
				current = nil
				continue
			}
			current.WriteString(line + "\n")
		}
	}
	for i := range res {
		if s, ok := sections[res[i].name]; ok && !res[i].passed {
			res[i].output = s.String()
		}
	}
	return res
}
