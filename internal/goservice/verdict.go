package goservice

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// The verdict of a simulate request comes from the test events, never from
// an exit code alone (docs/domain-services.md, "Test verdicts"):
//   - a test with any fail event failed, whatever else is reported of it
//     later (a forged "--- PASS" does not rescue it), and so did a test that
//     started and never ended (a crash or a timeout);
//   - a package passed only when its binary exited 0, printed its final
//     PASS, and none of its tests failed;
//   - a package whose test files declare tests (or whose declarations are
//     unknown) in which no test ran failed ("no test ran"), unless a -run
//     filter was given; then the filter must have matched a test in some
//     package. A package whose test files hold only benchmarks runs none,
//     as under go test, and that alone fails nothing;
//   - a result for a test its package does not declare (no func TestX,
//     ExampleX or FuzzX in its test files) is forged framing: it fails;
//   - the run passed only when every package passed and at least one test
//     ran and passed without being skipped.

// testKey names one test of one package.
type testKey struct{ pkg, name string }

// maxTestOutput bounds the output kept per test.
const maxTestOutput = 256 << 10

// verdict folds the runs into the result: tests, diagnostics and Passed.
func verdict(ws *workspace, module string, runs []testRun, filter string) domain.SimulateResult {
	res := domain.SimulateResult{Tests: []domain.TestResult{}, Diagnostics: []domain.Diagnostic{}}
	var all strings.Builder
	anyRan, anyPassed, passed := false, false, true
	for _, run := range runs {
		tests, failed, ended, elapsed := foldEvents(run)
		all.WriteString(run.output)
		pkgFailed := false
		for i, t := range tests {
			top, _, _ := strings.Cut(t.Name, "/")
			if run.declared != nil && !run.declared[top] {
				tests[i].Passed, tests[i].Skipped = false, false
				tests[i].Output += fmt.Sprintf("cogworks: %s is not declared in the test files of %s: its result was printed by the code under test\n", top, run.pkg.ImportPath)
			}
		}
		for _, t := range tests {
			if !t.Passed {
				pkgFailed = true
				if !hasFailingSubtest(tests, t) {
					res.Diagnostics = append(res.Diagnostics, testDiagnostic(ws, module, t))
				}
			}
			if t.Passed && !t.Skipped {
				anyPassed = true
			}
		}
		anyRan = anyRan || len(tests) > 0
		res.Tests = append(res.Tests, tests...)
		var reason string
		switch {
		case pkgFailed:
		case run.exitCode != 0 || failed:
			reason = fmt.Sprintf("package %s failed (exit status %d):\n%s", run.pkg.ImportPath, run.exitCode, truncate(run.output, 8<<10))
		case !ended:
			reason = fmt.Sprintf("package %s did not report its result (no final PASS):\n%s", run.pkg.ImportPath, truncate(run.output, 8<<10))
		case len(tests) == 0 && filter == "" && (run.declared == nil || len(run.declared) > 0):
			reason = fmt.Sprintf("no test ran in %s, which has tests:\n%s", run.pkg.ImportPath, truncate(run.output, 8<<10))
		}
		if reason != "" {
			pkgFailed = true
			res.Diagnostics = append(res.Diagnostics, packageDiagnostic(module, run.pkg.ImportPath, reason, run.output))
		}
		passed = passed && !pkgFailed
		// go test's summary line, which scenario criteria may look for;
		// written here, from the verdict, never by the test.
		if pkgFailed {
			fmt.Fprintf(&all, "FAIL\t%s\t%.3fs\n", run.pkg.ImportPath, elapsed)
		} else {
			fmt.Fprintf(&all, "ok  \t%s\t%.3fs\n", run.pkg.ImportPath, elapsed)
		}
	}
	switch {
	case filter != "" && !anyRan:
		res.Diagnostics = append(res.Diagnostics, looseDiagnostic([]string{fmt.Sprintf("no test ran: -run %q matched no test", filter)}, domain.CategoryTestFailure))
	case passed && !anyPassed:
		res.Diagnostics = append(res.Diagnostics, looseDiagnostic([]string{"no test ran and passed (every test was skipped, or there were none)"}, domain.CategoryTestFailure))
	}
	res.Passed = passed && anyPassed
	res.Output = all.String()
	return res
}

// foldEvents turns one package's events into its tests, and says whether
// the package reported a failure, whether it reported its result at all,
// and its elapsed time in seconds.
func foldEvents(run testRun) (tests []domain.TestResult, failed, ended bool, elapsed float64) {
	tests = []domain.TestResult{}
	index := map[testKey]int{}
	failedTest := map[int]bool{}
	finished := map[int]bool{}
	for _, ev := range run.events {
		if ev.Test == "" {
			switch ev.Action {
			case "fail":
				failed, ended, elapsed = true, true, ev.Elapsed
			case "pass", "skip":
				ended, elapsed = true, ev.Elapsed
			}
			continue
		}
		k := testKey{run.pkg.ImportPath, ev.Test}
		i, ok := index[k]
		if !ok {
			i = len(tests)
			index[k] = i
			tests = append(tests, domain.TestResult{Name: ev.Test, Package: run.pkg.ImportPath})
		}
		t := &tests[i]
		if len(t.Output) < maxTestOutput {
			t.Output += ev.Output
		}
		switch ev.Action {
		case "pass", "skip", "fail":
			finished[i] = true
			failedTest[i] = failedTest[i] || ev.Action == "fail"
			t.Skipped = ev.Action == "skip" && !failedTest[i]
			t.ElapsedMS = int64(ev.Elapsed * 1000)
		}
	}
	for i := range tests {
		tests[i].Passed = finished[i] && !failedTest[i]
		if !finished[i] {
			tests[i].Skipped = false
		}
	}
	return tests, failed, ended, elapsed
}

// packageDiagnostic reports a package that failed without a failing test
// to blame.
func packageDiagnostic(module, importPath, msg, output string) domain.Diagnostic {
	dir := pkgDir(module, importPath)
	return domain.Diagnostic{
		Artifact: dir, Location: domain.Location{File: dir},
		Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
		Message: msg, Explains: explainTestOutput(output),
	}
}

// declaredTests returns the names of the tests, examples and fuzz targets
// the *_test.go files of the workspace directory dir (slash-separated)
// declare: the only top-level names the testing package can report. It
// runs after the compile step and before any test code has run, and reads
// as every host-side read of the workspace does (ws.readFile: no link
// followed, regular files only, size-capped). A directory or file it
// cannot read or parse yields nil (no check): the compile step read the
// same files.
func declaredTests(ws *workspace, dir string) map[string]bool {
	root, rel := ws.hostRoot(dir)
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := ws.readFile(path.Join(dir, e.Name()))
		if err != nil {
			return nil
		}
		f, err := parser.ParseFile(fset, e.Name(), src, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil {
				continue
			}
			for _, prefix := range []string{"Test", "Example", "Fuzz"} {
				if strings.HasPrefix(fn.Name.Name, prefix) {
					names[fn.Name.Name] = true
				}
			}
		}
	}
	return names
}
