package goservice

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
)

// ScenarioStage is the request stage (pipeline.StageScenarioValidation)
// whose simulate runs held-out scenarios: only then are they visible to
// the code under test.
const ScenarioStage = "scenario-validation"

// maxOutputBytes bounds the combined output returned by simulate.
const maxOutputBytes = 1 << 20

// testEvent is one line of `go test -json` (test2json plus build events).
type testEvent struct {
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string
	// FailedBuild names the ImportPath of the build-output events that
	// explain a package's failure.
	FailedBuild string
}

// simulate runs go test -json and reports every test's outcome.
func (s *service) simulate(ctx context.Context, req domain.Request) (any, error) {
	var p domain.SimulateParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, failf(domain.CodeInvalidRequest, "params: %v", err)
		}
	}
	timeout := s.opts.TestTimeout
	if p.Timeout != "" {
		d, err := time.ParseDuration(p.Timeout)
		if err != nil || d <= 0 {
			return nil, failf(domain.CodeInvalidRequest, "params.timeout %q is not a positive Go duration", p.Timeout)
		}
		timeout = min(d, s.opts.TestTimeout)
	}
	pkgs := p.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	for _, pkg := range pkgs {
		if strings.HasPrefix(pkg, "-") {
			return nil, failf(domain.CodeInvalidRequest, "params.packages: %q is not a package pattern", pkg)
		}
	}
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()

	args := []string{"test", "-json", "-count=1", "-timeout", timeout.String()}
	if p.Filter != "" {
		args = append(args, "-run", p.Filter)
	}
	args = append(args, ws.packagePatterns(pkgs...)...)
	start := time.Now()
	// The test binary panics itself at -timeout; the extra minute covers
	// compilation before the process group is killed.
	res, err := s.run.goCmd(ctx, ws, step{timeout: timeout + time.Minute, scenarios: req.Stage == ScenarioStage}, args...)
	if err != nil {
		return nil, err
	}
	out := parseTestEvents(ws, res.stdout)
	out.ExitCode = res.exitCode
	out.Passed = res.exitCode == 0
	out.DurationMS = time.Since(start).Milliseconds()
	out.Output = truncate(out.Output+string(res.stderr), maxOutputBytes)
	if !out.Passed && len(out.Diagnostics) == 0 {
		msg := strings.TrimSpace(string(res.stderr))
		if msg == "" {
			msg = fmt.Sprintf("go test exited with status %d", res.exitCode)
		}
		out.Diagnostics = append(out.Diagnostics, looseDiagnostic([]string{msg}, domain.CategoryTestFailure))
	}
	return out, nil
}

type testKey struct{ pkg, name string }

// parseTestEvents folds the event stream into per-test results, test_failure
// diagnostics for failing leaf tests and packages, and build diagnostics for
// packages that did not compile.
func parseTestEvents(ws *workspace, stdout []byte) domain.SimulateResult {
	res := domain.SimulateResult{Tests: []domain.TestResult{}, Diagnostics: []domain.Diagnostic{}}
	var all strings.Builder
	index := map[testKey]int{}
	pkgOutput := map[string]*strings.Builder{}
	buildOutput := map[string]*strings.Builder{}
	failedPkgs := []string{}
	failedBuild := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev testEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Action == "" {
			all.Write(sc.Bytes())
			all.WriteByte('\n')
			continue
		}
		all.WriteString(ev.Output)
		switch {
		case ev.Action == "build-output":
			builder(buildOutput, ev.ImportPath).WriteString(ev.Output)
		case ev.Test == "":
			builder(pkgOutput, ev.Package).WriteString(ev.Output)
			if ev.Action == "fail" {
				failedPkgs = append(failedPkgs, ev.Package)
				if ev.FailedBuild != "" {
					failedBuild[ev.Package] = ev.FailedBuild
				}
			}
		default:
			k := testKey{ev.Package, ev.Test}
			i, ok := index[k]
			if !ok {
				i = len(res.Tests)
				index[k] = i
				res.Tests = append(res.Tests, domain.TestResult{Name: ev.Test, Package: ev.Package})
			}
			t := &res.Tests[i]
			t.Output += ev.Output
			switch ev.Action {
			case "pass", "skip":
				t.Passed, t.ElapsedMS = true, int64(ev.Elapsed*1000)
			case "fail":
				t.Passed, t.ElapsedMS = false, int64(ev.Elapsed*1000)
			}
		}
	}
	res.Output = all.String()
	module := ws.modulePath()
	failedTests := map[string]bool{}
	for _, t := range res.Tests {
		if !t.Passed && !hasFailingSubtest(res.Tests, t) {
			failedTests[t.Package] = true
			res.Diagnostics = append(res.Diagnostics, testDiagnostic(ws, module, t))
		}
	}
	for _, pkg := range failedPkgs {
		if failedTests[pkg] {
			continue
		}
		if b, ok := buildOutput[failedBuild[pkg]]; ok {
			diags, loose := ws.compileDiagnostics(b.String())
			if len(diags) == 0 {
				diags = append(diags, looseDiagnostic(loose, domain.CategoryTypeError))
			}
			res.Diagnostics = append(res.Diagnostics, diags...)
			continue
		}
		out := ""
		if b, ok := pkgOutput[pkg]; ok {
			out = b.String()
		}
		res.Diagnostics = append(res.Diagnostics, domain.Diagnostic{
			Artifact: pkgDir(module, pkg), Location: domain.Location{File: pkgDir(module, pkg)},
			Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
			Message:  fmt.Sprintf("package %s failed:\n%s", pkg, truncate(out, 8<<10)),
			Explains: explainTestOutput(out),
		})
	}
	return res
}

func builder(m map[string]*strings.Builder, k string) *strings.Builder {
	b, ok := m[k]
	if !ok {
		b = &strings.Builder{}
		m[k] = b
	}
	return b
}

func hasFailingSubtest(tests []domain.TestResult, parent domain.TestResult) bool {
	for _, t := range tests {
		if t.Package == parent.Package && !t.Passed && strings.HasPrefix(t.Name, parent.Name+"/") {
			return true
		}
	}
	return false
}

// testDiagnostic reports a failing test, located at the first
// "file_test.go:line:" its testing.T printed, and says whether its output
// explains the failure.
func testDiagnostic(ws *workspace, module string, t domain.TestResult) domain.Diagnostic {
	d := domain.Diagnostic{
		Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
		Message:  fmt.Sprintf("%s failed:\n%s", t.Name, truncate(t.Output, 8<<10)),
		Explains: explainTestOutput(t.Output),
	}
	dir := pkgDir(module, t.Package)
	d.Artifact, d.Location.File = dir, dir
	if file, line, ok := testLogPosition(t.Output); ok {
		if rel := ws.visiblePath(path.Join(dir, file)); rel != "" {
			d.Artifact, d.Location = rel, domain.Location{File: rel, Line: line}
		}
	}
	return d
}

// pkgDir maps an import path inside module to its repository-relative
// directory ("." for the module root).
func pkgDir(module, importPath string) string {
	if module == "" {
		return importPath
	}
	if importPath == module {
		return "."
	}
	if rest, ok := strings.CutPrefix(importPath, module+"/"); ok {
		return rest
	}
	return importPath
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…(truncated)\n" + s[len(s)-n:]
}
