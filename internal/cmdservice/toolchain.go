package cmdservice

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Problem is what `cogworks doctor` reports of a domain's toolchain:
// Fatal when no test can run, a warning when some command is skipped or
// the run needs more than the checkout holds.
type Problem struct {
	Fatal   bool
	Message string
}

// plainCommand matches a command line's leading program when the line is
// a plain invocation (no shell construct before it).
var plainCommand = regexp.MustCompile(`^\s*(?:[A-Z_][A-Z0-9_]*=\S*\s+)*([A-Za-z0-9_./+-]+)`)

// shellWords are not programs to look up.
var shellWords = []string{"if", "then", "else", "fi", "for", "while", "do", "done", "case", "cd", "export", "set", "test", "[", "true", "false", "exit", "echo", "mkdir", "rm", "cp", "env"}

// CheckToolchain reports what d needs that this host or the checkout at
// workspace lacks, without running any repository code: a python that
// can import pytest for {python} commands; node and node_modules for the
// JavaScript presets (the sandbox has no network, so a checkout without
// node_modules and no set-up runs only `npm test`); and the program of
// every plain command line on environ's PATH.
func CheckToolchain(ctx context.Context, d Domain, workspace string, environ []string) []Problem {
	var out []Problem
	if d.usesPython() {
		if p := findPython(ctx, environ); !p.hasPytest {
			out = append(out, Problem{Fatal: true, Message: "no python on PATH (nor /usr/bin/python3) can import pytest: install it for the interpreter CogWorks runs (Debian: apt-get install python3-pytest)"})
		}
	}
	lines := append([]string{d.Setup, d.Format, d.Test, d.TestOne}, d.Checks...)
	usesNodeModules := slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "node_modules/.bin/") })
	if usesNodeModules {
		if _, err := lookPath("node", environ); err != nil {
			out = append(out, Problem{Fatal: true, Message: "node is not on PATH"})
		}
		if _, err := os.Stat(filepath.Join(workspace, "node_modules")); err != nil && d.Setup == "" {
			out = append(out, Problem{Fatal: true, Message: "no node_modules in the checkout and no setup command: tsc, vitest and jest are skipped and only `npm test` runs, " +
				"which passes only if it writes a JUnit report; run `npm ci` before CogWorks (a workflow step) or set setup = \"npm ci\" with setup_network = true"})
		} else if err == nil && !anyExists(workspace, "node_modules/.bin/vitest", "node_modules/jest-junit") {
			out = append(out, Problem{Message: "neither vitest nor jest-junit is in node_modules: only `npm test` runs, which passes only if it writes a JUnit report to $COGWORKS_REPORT_DIR"})
		}
	}
	seen := map[string]bool{}
	for _, l := range lines {
		m := plainCommand.FindStringSubmatch(l)
		if m == nil || seen[m[1]] || slices.Contains(shellWords, m[1]) || strings.HasPrefix(m[1], "{") {
			continue
		}
		seen[m[1]] = true
		prog := m[1]
		if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
			if !anyExists(workspace, prog) && d.Setup == "" {
				out = append(out, Problem{Fatal: l == d.Test, Message: fmt.Sprintf("%s is not in the checkout and no setup command makes it", prog)})
			}
			continue
		}
		if _, err := lookPath(prog, environ); err != nil {
			out = append(out, Problem{Fatal: l == d.Test, Message: fmt.Sprintf("%s is not on PATH", prog)})
		}
	}
	return out
}

func anyExists(dir string, rels ...string) bool {
	for _, r := range rels {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r))); err == nil {
			return true
		}
	}
	return false
}
