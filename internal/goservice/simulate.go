package goservice

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// ScenarioStage is the request stage (pipeline.StageScenarioValidation)
// whose simulate runs held-out scenarios: only then are they visible to
// the code under test.
const ScenarioStage = "scenario-validation"

// maxOutputBytes bounds the combined output returned by simulate.
const maxOutputBytes = 1 << 20

// testEvent is one event of test2json.
type testEvent struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// simulate runs the tests of the requested packages, each package's test
// binary in its own sandbox, and reports every test's outcome with a
// verdict taken from the test events (see verdict.go).
func (s *service) simulate(ctx context.Context, req domain.Request) (any, error) {
	var p domain.SimulateParams
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params: %v", err)
		}
	}
	timeout := s.opts.TestTimeout
	if p.Timeout != "" {
		d, err := time.ParseDuration(p.Timeout)
		if err != nil || d <= 0 {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params.timeout %q is not a positive Go duration", p.Timeout)
		}
		timeout = min(d, s.opts.TestTimeout)
	}
	pkgs := p.Packages
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	for _, pkg := range pkgs {
		if strings.HasPrefix(pkg, "-") {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "params.packages: %q is not a package pattern", pkg)
		}
	}
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	declared := testDeclarations(ws, p.Paths)
	start := time.Now()
	out, err := s.runTests(ctx, ws, step{timeout: timeout + time.Minute, scenarios: req.Stage == ScenarioStage}, testSelection{pkgs: pkgs, timeout: timeout, filter: p.Filter})
	if err != nil {
		return nil, err
	}
	out.DurationMS = time.Since(start).Milliseconds()
	out.Output = truncate(out.Output, maxOutputBytes)
	if !out.Passed && out.ExitCode == 0 {
		out.ExitCode = 1 // a verdict of failure never reads as a clean exit
	}
	out.DeclaredTests = declared
	return out, nil
}

// testSelection is a simulate request's tests, validated: which run and
// for how long.
type testSelection struct {
	// pkgs are the package patterns; never empty (./... by default).
	pkgs []string
	// timeout is each test binary's -test.timeout.
	timeout time.Duration
	// filter is the -test.run pattern; "" runs every test.
	filter string
}

// runTests compiles the selected packages' test binaries, runs each in
// its own sandbox and judges the events (see testrun.go and verdict.go).
// st bounds each step: the test binary panics itself at sel.timeout, and
// the extra minute covers compilation and the sandbox.
func (s *service) runTests(ctx context.Context, ws *workspace, st step, sel testSelection) (domain.SimulateResult, error) {
	r := s.run
	pkgs, filter := sel.pkgs, sel.filter
	binDir, err := os.MkdirTemp("", "cogworks-tests-")
	if err != nil {
		return domain.SimulateResult{}, extserver.Errorf(domain.CodeInternalError, "create test binary directory: %v", err)
	}
	defer func() { _ = os.RemoveAll(binDir) }()
	built, err := r.compileTests(ctx, ws, st, testBuild{dir: binDir, groups: [][]string{ws.packagePatterns(pkgs...)}})
	if err == nil && built.collision {
		// Two packages' binaries share a name: list the packages and
		// compile them in groups of distinct names.
		list, res, lerr := r.listPackages(ctx, ws, st, ws.packagePatterns(pkgs...))
		if lerr != nil {
			return domain.SimulateResult{}, lerr
		}
		if res.exitCode != 0 {
			return failedStep(res), nil
		}
		built, err = r.compileTests(ctx, ws, st, testBuild{dir: binDir, first: 1, groups: compileGroups(list)})
	}
	if err != nil {
		return domain.SimulateResult{}, err
	}
	if built.failed != nil {
		return compileFailure(ws, *built.failed), nil
	}
	args := []string{"-test.v=test2json", "-test.paniconexit0", "-test.count=1", "-test.timeout=" + sel.timeout.String()}
	tc, err := r.setup(ctx) // done by the compile step: this returns at once
	if err != nil {
		return domain.SimulateResult{}, err
	}
	args = append(args, testBinaryFlags(tc.settings["GOFLAGS"])...)
	if filter != "" {
		args = append(args, "-test.run="+filter)
	}
	runs, err := r.runTests(ctx, ws, st, testBatch{binDir: binDir, bins: built.binaries, args: args})
	if err != nil {
		return domain.SimulateResult{}, err
	}
	out := verdict(ws, ws.modulePath(), runs, filter)
	out.Output = built.notes + out.Output
	for _, run := range runs {
		if run.exitCode != 0 && out.ExitCode == 0 {
			out.ExitCode = run.exitCode
		}
	}
	return out, nil
}

// failedStep reports a go command that failed before any test could run.
func failedStep(res result) domain.SimulateResult {
	msg := strings.TrimSpace(string(res.stderr))
	if msg == "" {
		msg = fmt.Sprintf("go exited with status %d", res.exitCode)
	}
	return domain.SimulateResult{
		ExitCode: res.exitCode, Output: string(res.stdout) + string(res.stderr), Tests: []domain.TestResult{},
		Diagnostics: []domain.Diagnostic{looseDiagnostic([]string{msg}, domain.CategoryTestFailure)},
	}
}

// compileFailure reports the compile (and go vet) errors of go test -c.
func compileFailure(ws *workspace, res result) domain.SimulateResult {
	out := domain.SimulateResult{ExitCode: res.exitCode, Tests: []domain.TestResult{}, Diagnostics: []domain.Diagnostic{}}
	outputs, loose := buildOutputs(res.stdout)
	var text strings.Builder
	for _, pkg := range slices.Sorted(maps.Keys(outputs)) {
		text.WriteString(outputs[pkg])
		d, l := ws.compileDiagnostics(outputs[pkg])
		out.Diagnostics, loose = append(out.Diagnostics, d...), append(loose, l...)
	}
	text.WriteString(string(res.stderr))
	if len(out.Diagnostics) == 0 {
		loose = append(loose, strings.TrimSpace(string(res.stderr)))
		out.Diagnostics = append(out.Diagnostics, looseDiagnostic(loose, domain.CategoryTypeError))
	}
	out.Output = text.String()
	return out
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
