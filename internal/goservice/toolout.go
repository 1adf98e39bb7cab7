package goservice

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// buildEvent is one event of `go build -json` (Go 1.24+), also interleaved
// with the test2json events of `go test -json`.
type buildEvent struct {
	ImportPath string
	Action     string
	Output     string
}

// buildOutputs groups the build-output events of a JSON event stream by
// the ImportPath they belong to; lines that are not events are returned
// as loose output.
func buildOutputs(stream []byte) (map[string]string, []string) {
	out := map[string]string{}
	var loose []string
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev buildEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			if line := strings.TrimSpace(sc.Text()); line != "" {
				loose = append(loose, line)
			}
			continue
		}
		if ev.Action == "build-output" {
			out[ev.ImportPath] += ev.Output
		}
	}
	return out, loose
}

// parsePosn splits the toolchain's "file:line[:col]" position.
func parsePosn(s string) (file string, line, col int, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, 0, false
	}
	last, err := strconv.Atoi(s[i+1:])
	if err != nil || last <= 0 {
		return "", 0, 0, false
	}
	rest := s[:i]
	if j := strings.LastIndexByte(rest, ':'); j >= 0 {
		if l, err := strconv.Atoi(rest[j+1:]); err == nil && l > 0 && rest[:j] != "" {
			return rest[:j], l, last, true
		}
	}
	if rest == "" {
		return "", 0, 0, false
	}
	return rest, last, 0, true
}

// compileDiagnostics reads the compiler's output for one or more packages
// (the Output of build-output events, or go vet's stderr when a package
// does not type-check): one "file.go:line:col: message" line per error,
// indented continuation lines, "# package" headers. A located error is a
// syntax_error when go/parser rejects the file it names and a type_error
// otherwise; both explain themselves. Unlocated lines come back loose.
func (w *workspace) compileDiagnostics(output string) ([]domain.Diagnostic, []string) {
	var diags []domain.Diagnostic
	var loose []string
	syntax := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if (strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "    ")) && len(diags) > 0 {
			diags[len(diags)-1].Message += "\n" + strings.TrimSpace(line)
			continue
		}
		posn, msg, found := strings.Cut(strings.TrimPrefix(line, "vet: "), ": ")
		file, lineNo, col, ok := parsePosn(posn)
		if !found || !ok || !strings.HasSuffix(file, ".go") {
			loose = append(loose, line)
			continue
		}
		rel := w.visiblePath(file)
		cat := domain.CategoryTypeError
		if rel != "" {
			bad, seen := syntax[rel]
			if !seen {
				bad = len(w.syntaxErrors(rel)) > 0
				syntax[rel] = bad
			}
			if bad {
				cat = domain.CategorySyntaxError
			}
		}
		diags = append(diags, domain.Diagnostic{
			Artifact: rel, Location: domain.Location{File: rel, Line: lineNo, Column: col},
			Severity: domain.SeverityBlocking, Category: cat, Message: msg,
			Explains: domain.ExplainsCompileError,
		})
	}
	return diags, loose
}

// syntaxErrors parses the workspace file rel and returns go/parser's
// errors (nil when it parses or cannot be read as a regular file: see
// readFile).
func (w *workspace) syntaxErrors(rel string) scanner.ErrorList {
	src, err := w.readFile(rel)
	if err != nil {
		return nil
	}
	return parseErrors(src)
}

// parseErrors returns go/parser's error list for src, nil when it parses.
func parseErrors(src []byte) scanner.ErrorList {
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.AllErrors|parser.SkipObjectResolution)
	var list scanner.ErrorList
	if errors.As(err, &list) {
		return list
	}
	return nil
}

// syntaxDiagnostics converts go/parser's error list for file into one
// syntax_error diagnostic per error.
func syntaxDiagnostics(file string, list scanner.ErrorList) []domain.Diagnostic {
	var out []domain.Diagnostic
	for _, e := range list {
		out = append(out, domain.Diagnostic{
			Artifact: file, Location: domain.Location{File: file, Line: e.Pos.Line, Column: e.Pos.Column},
			Severity: domain.SeverityBlocking, Category: domain.CategorySyntaxError, Message: e.Msg,
			Explains: domain.ExplainsCompileError,
		})
	}
	return out
}

// vetFinding is one diagnostic of `go vet -json`.
type vetFinding struct {
	Posn    string `json:"posn"`
	Message string `json:"message"`
}

// vetDiagnostics decodes `go vet -json` output: one object per package,
// mapping analyzer names to findings (or to {"error": ...} when the
// analyzer could not run). Findings are style_violation warnings.
func (w *workspace) vetDiagnostics(stdout []byte) ([]domain.Diagnostic, error) {
	var diags []domain.Diagnostic
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var pkgs map[string]map[string]json.RawMessage
		if err := dec.Decode(&pkgs); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, extserver.Errorf(domain.CodeToolFailed, "decode go vet -json output: %v", err)
		}
		for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
			for _, analyzer := range slices.Sorted(maps.Keys(pkgs[pkg])) {
				var findings []vetFinding
				if err := json.Unmarshal(pkgs[pkg][analyzer], &findings); err != nil {
					var e struct{ Error string }
					if json.Unmarshal(pkgs[pkg][analyzer], &e) != nil || e.Error == "" {
						return nil, extserver.Errorf(domain.CodeToolFailed, "decode go vet -json output: package %s analyzer %s: %v", pkg, analyzer, err)
					}
					diags = append(diags, domain.Diagnostic{Severity: domain.SeverityWarning,
						Category: domain.CategoryStyleViolation, Message: analyzer + ": " + e.Error})
					continue
				}
				for _, f := range findings {
					d := domain.Diagnostic{Severity: domain.SeverityWarning, Category: domain.CategoryStyleViolation,
						Message: f.Message}
					if file, line, col, ok := parsePosn(f.Posn); ok {
						rel := w.visiblePath(file)
						d.Artifact, d.Location = rel, domain.Location{File: rel, Line: line, Column: col}
						if rel == "" {
							d.Artifact, d.Location = pkgDir(w.modulePath(), pkg), domain.Location{File: pkgDir(w.modulePath(), pkg)}
						}
					}
					diags = append(diags, d)
				}
			}
		}
	}
	return diags, nil
}

// visiblePath maps a path printed by the toolchain to the repository-
// relative path of a file in this workspace, or "" when it names no such
// file (a path into the module cache, GOROOT or another workspace whose
// file this one lacks, or anything but a regular file: see isFile): a
// diagnostic must not name a file the model cannot see.
func (w *workspace) visiblePath(p string) string {
	if !filepath.IsAbs(p) {
		// Relative to the go command's working directory, the workspace
		// root: "../cogworks-go-NNN/..." is a finding go vet replays from
		// another workspace's run.
		p = filepath.Join(w.dir, p)
	}
	rel := w.relPath(p)
	if rel == "" || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	if !w.isFile(rel) {
		return ""
	}
	return rel
}

// testLogPosition finds the first line testing.T's Log, Error or Fatal
// printed in a test's output: indented, "name.go:line: message", the file
// named by its base name in the test's package directory.
func testLogPosition(output string) (file string, line int, ok bool) {
	for _, l := range strings.Split(output, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if len(trimmed) == len(l) {
			continue
		}
		posn, _, found := strings.Cut(trimmed, ": ")
		if !found {
			continue
		}
		f, n, col, ok := parsePosn(posn)
		if ok && col == 0 && strings.HasSuffix(f, ".go") && !strings.ContainsAny(f, "/ \t") {
			return f, n, true
		}
	}
	return "", 0, false
}

// explainTestOutput says whether a failed test's output explains itself:
// the test binary's timeout panic, a panic with its goroutine stack, or an
// assertion that printed both what it got and what it wanted (got/want,
// expected/actual, or Go's "F(x) = y, want z" convention). Anything
// else (a bare "counter misbehaves", a panic without a stack) does not.
func explainTestOutput(output string) domain.Explanation {
	lines := strings.Split(output, "\n")
	panicked, stack := false, false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "panic: test timed out after "):
			return domain.ExplainsTimeout
		case strings.HasPrefix(l, "panic: "):
			panicked = true
		case panicked && strings.HasPrefix(l, "goroutine ") && strings.HasSuffix(strings.TrimSpace(l), ":"):
			stack = true
		}
	}
	if panicked && stack {
		return domain.ExplainsPanic
	}
	for _, l := range lines {
		if before, _, ok := strings.Cut(l, ", want "); ok && strings.Contains(before, " = ") {
			return domain.ExplainsAssertion
		}
	}
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(output), func(r rune) bool {
		return r < 'a' || r > 'z'
	}) {
		words[w] = true
	}
	if (words["got"] && (words["want"] || words["wanted"])) || (words["expected"] && words["actual"]) {
		return domain.ExplainsAssertion
	}
	return ""
}
