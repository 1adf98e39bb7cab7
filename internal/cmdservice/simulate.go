package cmdservice

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/beneath"
	"github.com/cogworks/cogworks/internal/langmap"
)

// maxReportBytes bounds one JUnit report.
const maxReportBytes = 64 << 20

// simulate runs the test command (or the one-test command when a filter
// is given) and judges the run from the tests it reports, never from the
// exit status alone (docs/domain-services.md "Test verdicts").
func (s *service) simulate(ctx context.Context, req domain.Request) (any, error) {
	var params domain.SimulateParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params: %v", err)
		}
	}
	timeout := s.opts.TestTimeout
	if params.Timeout != "" {
		d, err := time.ParseDuration(params.Timeout)
		if err != nil || d <= 0 {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params.timeout %q is not a positive duration", params.Timeout)
		}
		timeout = min(d, timeout)
	}
	line := s.d.Test
	if params.Filter != "" {
		if s.d.TestOne == "" {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params.filter %q: domain %s declares no test_one command", params.Filter, s.d.Name)
		}
		line = strings.ReplaceAll(s.d.TestOne, "{filter}", shellQuote(params.Filter))
	}
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	// Declarations are read before any command runs: set-up and the tests
	// are the repository's code, which could rewrite its test files.
	declared := s.declaredTests(ws, params.Paths)
	if err := s.setup(ctx, ws); err != nil {
		return nil, err
	}
	// The report directory is made for this run, outside the workspace:
	// a report the repository ships, or an earlier step wrote, is never
	// read.
	reports, err := os.MkdirTemp("", "cogworks-report-")
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "create report directory: %v", err)
	}
	defer os.RemoveAll(reports)
	start := time.Now()
	res, err := s.run.run(ctx, ws, command{line: line, timeout: timeout, reportDir: reports})
	if err != nil {
		return nil, err
	}
	tests, readErr := s.readTests(reports, res.output)
	out := judge(ws, tests, readErr, res.exitCode, params.Filter)
	out.Output = tail(res.output)
	out.DurationMS = time.Since(start).Milliseconds()
	out.DeclaredTests = declared
	return out, nil
}

// maxDeclaredFile bounds a test file read for its declarations.
const maxDeclaredFile = 1 << 20

// declaredTests reads the tests the domain's files among paths declare
// in ws (internal/langmap: parsed, never run). A path that is absent
// (deleted, or new in the change on the base tree), not the domain's or
// unreadable declares nothing.
func (s *service) declaredTests(ws *workspace, paths []string) []domain.TestDeclaration {
	out := []domain.TestDeclaration{}
	for _, p := range paths {
		if !s.d.covers(p) || !ws.files[p] {
			continue
		}
		src, err := beneath.ReadFile(ws.dir, p, maxDeclaredFile)
		if err != nil {
			continue
		}
		out = append(out, langmap.Tests(p, src)...)
	}
	return out
}

// readTests reads every JUnit report of the run (sorted by name), or,
// for a cargo domain without one, libtest's lines. No report is an error
// that judge turns into a failure.
func (s *service) readTests(dir string, output []byte) ([]junitCaseResult, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read report directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".xml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		if s.d.TestOutput == "cargo" {
			return parseCargoTest(output), nil
		}
		return nil, fmt.Errorf("the test command wrote no JUnit XML report to $%s", ReportDirEnv)
	}
	var all []junitCaseResult
	for _, n := range names {
		data, err := beneath.ReadFile(dir, n, maxReportBytes)
		if err != nil {
			return nil, fmt.Errorf("read report %s: %w", n, err)
		}
		cases, err := parseJUnit(data)
		if err != nil {
			return nil, fmt.Errorf("report %s: %w", n, err)
		}
		all = append(all, cases...)
	}
	return all, nil
}

// judge applies the verdict rules: passed only when the reports could be
// read, at least one test ran and passed without being skipped, none
// failed and the command exited 0.
func judge(ws *workspace, cases []junitCaseResult, readErr error, exitCode int, filter string) domain.SimulateResult {
	out := domain.SimulateResult{Tests: []domain.TestResult{}, Diagnostics: []domain.Diagnostic{}}
	fail := func(msg string) {
		out.Diagnostics = append(out.Diagnostics, domain.Diagnostic{
			Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure, Message: msg,
		})
	}
	ran, failed := 0, 0
	for _, c := range cases {
		out.Tests = append(out.Tests, domain.TestResult{
			Name: c.name, Package: testPackage(c), Passed: c.passed, Skipped: c.skipped,
			Output: c.output, ElapsedMS: c.elapsedMS,
		})
		switch {
		case !c.passed:
			failed++
			out.Diagnostics = append(out.Diagnostics, ws.testFailure(c))
		case !c.skipped:
			ran++
		}
	}
	switch {
	case readErr != nil:
		fail(fmt.Sprintf("no test results: %v (exit status %d)", readErr, exitCode))
	case ran == 0 && failed == 0 && filter != "":
		fail(fmt.Sprintf("no test ran: filter %q matched no test", filter))
	case ran == 0 && failed == 0:
		fail("no test ran")
	case failed == 0 && exitCode != 0:
		fail(fmt.Sprintf("the test command exited %d although no test reported a failure", exitCode))
	}
	out.Passed = readErr == nil && ran > 0 && failed == 0 && exitCode == 0
	out.ExitCode = exitCode
	if !out.Passed && exitCode == 0 {
		out.ExitCode = 1
	}
	if out.Passed {
		out.ExitCode = 0
	}
	return out
}

func testPackage(c junitCaseResult) string {
	if c.file != "" {
		return c.file
	}
	return c.pkg
}

// traceLineRE finds "file:line" in a failure's text (pytest's
// "tests/test_x.py:9: AssertionError", a panic's "src/lib.rs:12:9").
var traceLineRE = regexp.MustCompile(`(?m)([\w./-]+\.\w+):(\d+)`)

// testFailure is the test_failure diagnostic of a failed test, located
// at the last line of its own file the failure text names (the failing
// assertion), else at the test's declaration.
func (w *workspace) testFailure(c junitCaseResult) domain.Diagnostic {
	d := domain.Diagnostic{
		Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
		Message: fmt.Sprintf("%s failed:\n%s", testPackage(c)+"::"+c.name, c.output),
	}
	file, line := c.file, c.line
	for _, m := range traceLineRE.FindAllStringSubmatch(c.output, -1) {
		rel, ok := w.relPath(m[1])
		if !ok || (c.file != "" && rel != c.file) {
			continue
		}
		file = rel
		line, _ = strconv.Atoi(m[2])
	}
	if rel, ok := w.relPath(file); ok {
		d.Artifact = rel
		d.Location = domain.Location{File: rel, Line: line}
	}
	if strings.Contains(strings.ToLower(c.output), "assert") {
		d.Explains = domain.ExplainsAssertion
	}
	return d
}
