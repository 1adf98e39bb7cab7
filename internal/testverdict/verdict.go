package testverdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Decl names a top-level test: Dir is the Go package directory ("." for
// the module root) or, for a test a domain service declared, its Package
// (a Python file, a Java class; "" for any), e.g. {Dir: "telemetry", Name:
// "TestPublish"} or {Dir: "tests/test_calc.py", Name: "test_add"}.
type Decl struct {
	Dir  string
	Name string
}

// Input is everything a verdict is computed from.
type Input struct {
	// Head is the run of the tree with the change.
	Head domain.SimulateResult
	// Base is the run of the same packages on the tree without the
	// change; nil when there was none (then nothing can be excused and no
	// test can be found missing).
	Base *domain.SimulateResult
	// Rerun is the re-run, alone, of the failing tests Verdict.Retry
	// named; nil when there was none.
	Rerun *domain.SimulateResult
	// Required are the tests that must have run and passed: the plan's
	// and those the change's test files declare.
	Required []Decl
	// Changed are the tests declared in test files the change added or
	// modified: never excused as flaky, whatever a re-run says (the file
	// may hold what makes them pass alone).
	Changed []Decl
	// Rewritten are the tests whose declaration the change added or
	// altered: never excused at all, not even when the base fails them.
	Rewritten []Decl
	// Removed are the tests the change's test files declared at base and
	// no longer declare: they may be missing from the head run.
	Removed []Decl
}

// Key names one reported test.
type Key struct{ Package, Name string }

// String is "package.Name".
func (k Key) String() string { return k.Package + "." + k.Name }

// Excuse is a failing test that does not fail the run, and why it may be
// excused.
type Excuse struct {
	Key Key
	// Why says what made it eligible and what excused it.
	Why string
}

// Verdict is the judgement of one run.
type Verdict struct {
	// Passed is true iff Problems is empty.
	Passed bool
	// Broken is set when the run failed for a reason other than a failing
	// test (a build error, a panic outside a test, a timeout): no base
	// run or re-run can excuse that.
	Broken bool
	// Problems are the reasons the run fails, one sentence each.
	Problems []string
	// Failing are the failing leaf tests that were not excused.
	Failing []domain.TestResult
	// PreExisting fail on the base tree too; Flaky failed, then passed
	// when re-run alone. Both are eligible only when the test exists
	// unchanged at base.
	PreExisting []Excuse
	Flaky       []Excuse
	// Retry are the failing tests eligible for the flaky re-run, set when
	// Rerun was nil and they are all that fails the run: re-run them alone
	// and judge again with Rerun.
	Retry []domain.TestResult
	// Passing and Skipped name the tests that passed (and were not
	// skipped) and that were skipped.
	Passing []Key
	Skipped []Key
}

// Judge computes the verdict of in. A run passes only when the service
// says so and exited 0 (a failure claim is believed: it cannot help a
// change pass), at least one test ran and passed, every failing test is
// excused, no test that passed at base is missing or skipped at head
// (unless the change removed its declaration) and every required test ran
// and passed.
func Judge(in Input) Verdict {
	var v Verdict
	head := in.Head
	for _, t := range head.Tests {
		switch {
		case t.Skipped:
			v.Skipped = append(v.Skipped, keyOf(t))
		case t.Passed:
			v.Passing = append(v.Passing, keyOf(t))
		}
	}
	failing := FailingTests(head)
	if head.Passed && len(failing) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("the domain service reported the run as passed, but %s failed", joinTests(failing)))
	}
	if head.Passed && head.ExitCode != 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("the domain service reported the run as passed, but it exited with code %d", head.ExitCode))
	}
	if !head.Passed || head.ExitCode != 0 {
		if len(failing) == 0 {
			v.Broken = true
			v.Problems = append(v.Problems, fmt.Sprintf("the run failed (exit code %d) without a failing test: a build error, a panic outside a test or a timeout", head.ExitCode))
		} else if d := nonTestProblem(head, failing); d != "" {
			v.Broken = true
			v.Problems = append(v.Problems, "the run failed for a reason other than a failing test: "+d)
		}
	}
	retry := v.classify(in, failing)
	if len(v.Passing) == 0 && len(v.Failing) == 0 {
		v.Problems = append(v.Problems, "no test ran: the run reports no test that ran and passed (skipped tests prove nothing)")
	}
	if missing := missingFromBase(in); len(missing) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("tests that ran and passed on the base tree did not run on the change: %s (a change may drop a test only by removing its declaration)", joinKeys(missing)))
	}
	if notRun := requiredNotRun(in); len(notRun) > 0 {
		v.Problems = append(v.Problems, fmt.Sprintf("planned tests did not run and pass: %s", strings.Join(notRun, ", ")))
	}
	if len(retry) > 0 && len(retry) == len(v.Failing) && len(v.Problems) == 1 {
		v.Retry = retry // the failing tests are all that fails the run
	}
	v.Passed = len(v.Problems) == 0
	return v
}

// classify sorts the failing tests into excused and not, adds the
// problem the unexcused ones make and returns those eligible for the
// flaky re-run (none once a re-run was made).
func (v *Verdict) classify(in Input, failing []domain.TestResult) []domain.TestResult {
	baseFails, basePasses := map[Key]bool{}, map[Key]bool{}
	if in.Base != nil {
		for _, t := range FailingTests(*in.Base) {
			baseFails[keyOf(t)] = true
		}
		for _, t := range in.Base.Tests {
			if t.Passed && !t.Skipped {
				basePasses[keyOf(t)] = true
			}
		}
	}
	rerunPasses := map[Key]bool{}
	if in.Rerun != nil {
		rerunFails := map[Key]bool{}
		for _, t := range FailingTests(*in.Rerun) {
			rerunFails[keyOf(t)] = true
		}
		for _, t := range in.Rerun.Tests {
			if t.Passed && !t.Skipped && !rerunFails[keyOf(t)] {
				rerunPasses[keyOf(t)] = true
			}
		}
	}
	var retry []domain.TestResult
	var notes []string
	for _, t := range failing {
		k := keyOf(t)
		changed, rewritten := declaredIn(in.Changed, t), declaredIn(in.Rewritten, t)
		switch {
		case !rewritten && baseFails[k]:
			v.PreExisting = append(v.PreExisting, Excuse{Key: k, Why: "fails on the base tree too, and the change did not write or alter it"})
		case !changed && basePasses[k] && rerunPasses[k]:
			v.Flaky = append(v.Flaky, Excuse{Key: k, Why: "failed on the full run, passed when re-run alone; eligible because it ran and passed on the base tree and no file the change wrote declares it"})
		default:
			v.Failing = append(v.Failing, t)
			switch {
			case rewritten || changed:
				notes = append(notes, k.String()+" is declared in a test file the change wrote, so it is never excused")
			case !basePasses[k] && !baseFails[k]:
				notes = append(notes, k.String()+" did not run on the base tree, so it is never excused")
			case basePasses[k] && in.Rerun == nil:
				retry = append(retry, t)
			}
		}
	}
	if len(v.Failing) == 0 {
		return nil
	}
	p := "tests failed: " + joinTests(v.Failing)
	if len(notes) > 0 {
		p += " (" + strings.Join(notes, "; ") + ")"
	}
	v.Problems = append(v.Problems, p)
	return retry
}

// missingFromBase lists the tests that passed at base and did not run
// (absent or skipped) at head, leaving out those whose declaration the
// change removed and the subtests of tests the change rewrote.
func missingFromBase(in Input) []Key {
	if in.Base == nil {
		return nil
	}
	ran := map[Key]bool{}
	for _, t := range in.Head.Tests {
		if !t.Skipped {
			ran[keyOf(t)] = true
		}
	}
	// A parametrized test's instances are named by their parameters
	// (pytest's test_bump[3.4.5-rc.10]): a change to a parameter table
	// renames them. The test still ran when an instance of the same
	// function in the same file did.
	ranParams := map[Key]bool{}
	for k := range ran {
		if fn, ok := paramFunc(k.Name); ok {
			ranParams[Key{k.Package, fn}] = true
		}
	}
	var out []Key
	for _, t := range in.Base.Tests {
		k := keyOf(t)
		if !t.Passed || t.Skipped || ran[k] {
			continue
		}
		if declaredIn(in.Removed, t) || (strings.Contains(t.Name, "/") && declaredIn(in.Changed, t)) {
			continue
		}
		if fn, ok := paramFunc(t.Name); ok && ranParams[Key{t.Package, fn}] {
			continue
		}
		out = append(out, k)
	}
	return out
}

// paramFunc returns the function of a parametrized test instance's name,
// "name[params]" as pytest reports it; ok is false for any other name.
func paramFunc(name string) (string, bool) {
	i := strings.IndexByte(name, '[')
	if i <= 0 || !strings.HasSuffix(name, "]") {
		return "", false
	}
	return name[:i], true
}

// requiredNotRun lists the required tests no head result shows as run
// and passed (a failure is reported as a failure, not here).
func requiredNotRun(in Input) []string {
	var out []string
	for _, d := range in.Required {
		found := false
		for _, t := range in.Head.Tests {
			if runOf(t, d) && !t.Skipped {
				found = true
				break
			}
		}
		if !found {
			out = append(out, d.String())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// String is "dir.Name", or Name for the module root.
func (d Decl) String() string {
	if d.Dir == "" || d.Dir == "." {
		return d.Name
	}
	return d.Dir + "." + d.Name
}

// declaredIn reports whether t's top-level test is one of decls.
func declaredIn(decls []Decl, t domain.TestResult) bool {
	top := t
	top.Name = strings.SplitN(t.Name, "/", 2)[0]
	return slices.ContainsFunc(decls, func(d Decl) bool { return runOf(top, d) })
}

// InDir reports whether the package pkg (an import path, or "./dir" as
// non-Go services may report it) is the one in directory dir. The module
// path is not known here, so the test is by suffix, and the module root
// ("." or "") matches any package: a looser match only makes more tests
// count as changed or required.
func InDir(pkg, dir string) bool {
	dir = strings.Trim(strings.TrimPrefix(dir, "./"), "/")
	if dir == "" || dir == "." {
		return true
	}
	pkg = strings.TrimPrefix(pkg, "./")
	return pkg == dir || strings.HasSuffix(pkg, "/"+dir)
}

// nonTestProblem returns the first blocking diagnostic that is not a
// failing test's, "" when there is none.
func nonTestProblem(res domain.SimulateResult, failing []domain.TestResult) string {
	for _, d := range res.Diagnostics {
		if d.EffectiveSeverity() != domain.SeverityBlocking {
			continue
		}
		if d.Category != domain.CategoryTestFailure || TestOfDiagnostic(d, failing) == nil {
			return strings.SplitN(d.Message, "\n", 2)[0]
		}
	}
	return ""
}

// TestOfDiagnostic finds the failing test a test_failure diagnostic
// reports (services word it "<name> failed:").
func TestOfDiagnostic(d domain.Diagnostic, tests []domain.TestResult) *domain.TestResult {
	for i, t := range tests {
		// The Go service writes "<name> failed:", the command service
		// "<package>::<name> failed:".
		if strings.HasPrefix(d.Message, t.Name+" failed:") || strings.HasPrefix(d.Message, t.Package+"::"+t.Name+" failed:") {
			return &tests[i]
		}
	}
	return nil
}

// FailingTests returns the failed leaf tests (a parent failing only
// because a subtest failed is left out). A skipped test never fails.
func FailingTests(res domain.SimulateResult) []domain.TestResult {
	var out []domain.TestResult
	for _, t := range res.Tests {
		if t.Passed {
			continue
		}
		leaf := true
		for _, o := range res.Tests {
			if !o.Passed && o.Package == t.Package && strings.HasPrefix(o.Name, t.Name+"/") {
				leaf = false
				break
			}
		}
		if leaf {
			out = append(out, t)
		}
	}
	return out
}

func keyOf(t domain.TestResult) Key { return Key{t.Package, t.Name} }

func joinTests(ts []domain.TestResult) string {
	ks := make([]Key, len(ts))
	for i, t := range ts {
		ks[i] = keyOf(t)
	}
	return joinKeys(ks)
}

func joinKeys(ks []Key) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return strings.Join(out, ", ")
}
