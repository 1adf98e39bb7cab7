package codegen

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/testverdict"
)

// ChangeTests is what CogWorks knows, from the change itself and the plan,
// about the tests a run must show (package testverdict).
type ChangeTests struct {
	// Required: the plan's named tests and every test the change's test
	// files declare.
	Required []testverdict.Decl
	// Changed: tests declared in test files the change added or modified.
	Changed []testverdict.Decl
	// Rewritten: the tests whose declaration the change added or altered.
	Rewritten []testverdict.Decl
	// Removed: tests the change's test files declared at base and no
	// longer do.
	Removed []testverdict.Decl
	// pending are the change's files whose tests the domain service
	// declared (or may have declared at base): their Rewritten and
	// Removed tests need the base run's declarations (withBase).
	pending []declaredFile
}

// declaredFile is one changed file whose tests a service declares.
type declaredFile struct {
	path, old, now string
	// decls are the head run's declarations of the file.
	decls []domain.TestDeclaration
}

// testsOfChange reads the tests the change adds, rewrites and removes.
// The domain service that ran the change declares its files' tests
// (head, SimulateResult.DeclaredTests, Extension API 1.4); a Go test file
// it declares nothing for (a 1.3 service) is read here, at base and after
// the change. The rest waits for the base run's declarations (withBase).
// planned is the plan's free-text test notes.
func testsOfChange(ctx context.Context, base BaseTree, cs changeSet, planned string, head []domain.TestDeclaration) (ChangeTests, error) {
	var ct ChangeTests
	for _, name := range testverdict.PlannedTests(planned) {
		ct.Required = append(ct.Required, testverdict.Decl{Name: name})
	}
	for _, p := range slices.Sorted(maps.Keys(cs.Files)) {
		old, _, err := base.read(ctx, p)
		if err != nil {
			return ct, fmt.Errorf("tests of %s at base: %w", p, err)
		}
		if old == cs.Files[p] {
			continue
		}
		mine := testverdict.DeclaredIn(head, p)
		if len(mine) == 0 && strings.HasSuffix(p, "_test.go") {
			ct.goFile(p, old, cs.Files[p])
			continue
		}
		now := testverdict.Decls(mine)
		ct.Required = append(ct.Required, now...)
		ct.Changed = append(ct.Changed, now...)
		ct.pending = append(ct.pending, declaredFile{path: p, old: old, now: cs.Files[p], decls: mine})
	}
	for _, p := range cs.Deleted {
		old, _, err := base.read(ctx, p)
		if err != nil {
			return ct, fmt.Errorf("tests of deleted %s: %w", p, err)
		}
		if strings.HasSuffix(p, "_test.go") {
			ct.Removed = append(ct.Removed, testverdict.TestFuncs(p, old)...)
			continue
		}
		ct.pending = append(ct.pending, declaredFile{path: p, old: old})
	}
	// A planned name the change declares is required where it is declared.
	ct.Required = slices.DeleteFunc(ct.Required, func(d testverdict.Decl) bool {
		return d.Dir == "" && slices.ContainsFunc(ct.Changed, func(c testverdict.Decl) bool { return c.Name == d.Name })
	})
	return ct, nil
}

// goFile reads a Go test file's tests at base (old) and after the change
// (now), for a service that does not declare them.
func (ct *ChangeTests) goFile(p, old, now string) {
	decls := testverdict.TestFuncs(p, now)
	ct.Required = append(ct.Required, decls...)
	ct.Changed = append(ct.Changed, decls...)
	ct.Rewritten = append(ct.Rewritten, testverdict.RewrittenTests(p, old, now)...)
	for _, d := range testverdict.TestFuncs(p, old) {
		if !slices.Contains(decls, d) {
			ct.Removed = append(ct.Removed, d)
		}
	}
}

// withBase completes ct with the base run's declarations: the tests a
// changed file declares whose lines differ from base (Rewritten), and
// those it declared at base and no longer does (Removed).
func (ct ChangeTests) withBase(base []domain.TestDeclaration) ChangeTests {
	out := ct
	out.Rewritten, out.Removed, out.pending = slices.Clone(ct.Rewritten), slices.Clone(ct.Removed), nil
	for _, f := range ct.pending {
		before := testverdict.DeclaredIn(base, f.path)
		out.Rewritten = append(out.Rewritten, testverdict.RewrittenDecls(before, f.old, f.decls, f.now)...)
		now := testverdict.Decls(f.decls)
		for _, d := range testverdict.Decls(before) {
			if !slices.Contains(now, d) {
				out.Removed = append(out.Removed, d)
			}
		}
	}
	return out
}

// TestRun is one simulation of a change, as JudgeTests judges it.
type TestRun struct {
	// Base is the request of the tree the change started from; its tests
	// run with Params when the verdict needs them (once per BaselineCache
	// key).
	Base domain.Request
	// Head is the request of the changed tree; the failing tests eligible
	// for the flaky excuse re-run on it.
	Head domain.Request
	// Params are the simulation parameters Head ran with; their Paths
	// keep a re-run with the services that ran the tests.
	Params domain.SimulateParams
	// Result is Head's simulation, the one judged.
	Result domain.SimulateResult
}

// JudgeTests decides whether a simulation proves the change
// (testverdict.Judge): unless the run is broken (it did not build), it
// runs the packages' tests on base (cached: the missing-test rule needs
// it even when the head passed) and re-runs once, alone, the failing
// tests eligible for the flaky excuse (unchanged tests that passed at
// base).
func (e Executor) JudgeTests(ctx context.Context, cache *BaselineCache, run TestRun, ct ChangeTests) (testverdict.Verdict, error) {
	base, head, params, sim := run.Base, run.Head, run.Params, run.Result
	in := testverdict.Input{Head: sim, Required: ct.Required, Changed: ct.Changed, Rewritten: ct.Rewritten, Removed: ct.Removed}
	v := testverdict.Judge(in)
	if v.Broken {
		return v, nil
	}
	what := strings.Join(append(slices.Clone(params.Packages), params.Paths...), " ")
	key := baselineKey(base, params)
	baseRes, ok := cache.get(key)
	if !ok {
		var err error
		baseRes, err = e.Deps.Domain.Simulate(ctx, base, params)
		if err != nil {
			return v, fmt.Errorf("simulate the base tree of %s: %w", what, err)
		}
		cache.put(key, baseRes)
	}
	ct = ct.withBase(baseRes.DeclaredTests)
	in.Rewritten, in.Removed = ct.Rewritten, ct.Removed
	in.Base = &baseRes
	if v = testverdict.Judge(in); len(v.Retry) == 0 {
		return v, nil
	}
	again, err := e.Deps.Domain.Simulate(ctx, head, rerunParams(v.Retry, params.Paths))
	if err != nil {
		return v, fmt.Errorf("re-run failing tests of %s: %w", what, err)
	}
	in.Rerun = &again
	return testverdict.Judge(in), nil
}

// rerunParams selects the top-level tests of failing for a re-run; paths
// (the change's) keep the re-run with the services that ran them.
func rerunParams(failing []domain.TestResult, paths []string) domain.SimulateParams {
	var names, pkgs []string
	for _, t := range failing {
		names = append(names, regexp.QuoteMeta(strings.SplitN(t.Name, "/", 2)[0]))
		pkgs = append(pkgs, t.Package)
	}
	slices.Sort(names)
	slices.Sort(pkgs)
	return domain.SimulateParams{Packages: slices.Compact(pkgs), Paths: paths, Filter: "^(" + strings.Join(slices.Compact(names), "|") + ")$"}
}

// maxNamedTests bounds the test names one note lists.
const maxNamedTests = 40

// VerdictNotes are the audit trail's and the PR's lines for a passing
// verdict: which tests ran, and each excused failure with why it was
// eligible.
func VerdictNotes(v testverdict.Verdict) []string {
	ran := fmt.Sprintf("tests ran: %d passed, %d skipped", len(v.Passing), len(v.Skipped))
	if len(v.Passing) > 0 {
		ran += " — " + namedKeys(v.Passing)
	}
	if len(v.Skipped) > 0 {
		ran += "; skipped: " + namedKeys(v.Skipped)
	}
	out := []string{ran}
	if len(v.PreExisting) > 0 {
		out = append(out, "pre-existing test failures (fail at base too, not regressions; eligible because the change did not write or alter them): "+excuseKeys(v.PreExisting))
	}
	if len(v.Flaky) > 0 {
		out = append(out, "flaky tests excused (failed on the full run, passed when re-run alone; eligible because each ran and passed on the base tree and no file the change wrote declares it): "+excuseKeys(v.Flaky))
	}
	return out
}

func namedKeys(ks []testverdict.Key) string {
	names := make([]string, 0, min(len(ks), maxNamedTests))
	for _, k := range ks[:min(len(ks), maxNamedTests)] {
		names = append(names, k.String())
	}
	s := strings.Join(names, ", ")
	if len(ks) > maxNamedTests {
		s += fmt.Sprintf(" and %d more", len(ks)-maxNamedTests)
	}
	return s
}

func excuseKeys(es []testverdict.Excuse) string {
	ks := make([]testverdict.Key, len(es))
	for i, e := range es {
		ks[i] = e.Key
	}
	return namedKeys(ks)
}

// testNotes renders a passing verdict's notes after a summary.
func testNotes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " " + strings.ToUpper(notes[0][:1]) + notes[0][1:] + "." + excusedNotes(notes[1:])
}

// excusedNotes renders excused failures as a sentence.
func excusedNotes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " Not regressions: " + strings.Join(notes, "; ") + "."
}

// excuse returns sim with the excused tests marked passed and their
// diagnostics dropped, so the feedback names only what fails the change.
func excuse(sim domain.SimulateResult, v testverdict.Verdict) domain.SimulateResult {
	ex := map[testverdict.Key]bool{}
	for _, e := range append(slices.Clone(v.PreExisting), v.Flaky...) {
		ex[e.Key] = true
	}
	if len(ex) == 0 {
		return sim
	}
	out := sim
	out.Tests = slices.Clone(sim.Tests)
	var dropped []domain.TestResult
	for i, t := range out.Tests {
		if ex[testverdict.Key{Package: t.Package, Name: t.Name}] {
			dropped = append(dropped, t)
			out.Tests[i].Passed = true
		}
	}
	out.Diagnostics = nil
	for _, d := range sim.Diagnostics {
		if d.Category == domain.CategoryTestFailure && testverdict.TestOfDiagnostic(d, dropped) != nil {
			continue
		}
		out.Diagnostics = append(out.Diagnostics, d)
	}
	return out
}

// hasBlocking reports whether res carries a blocking diagnostic.
func hasBlocking(res domain.SimulateResult) bool {
	return slices.ContainsFunc(res.Diagnostics, func(d domain.Diagnostic) bool {
		return d.EffectiveSeverity() == domain.SeverityBlocking
	})
}

// verdictItems turns a verdict's problems into feedback items.
func verdictItems(v testverdict.Verdict) []feedbackItem {
	items := make([]feedbackItem, 0, len(v.Problems))
	for _, p := range v.Problems {
		items = append(items, feedbackItem{Severity: "blocking", Category: "test_verdict", Message: p})
	}
	return items
}

// judgeAttempt turns an attempt's simulation into its outcome: the
// change with its test notes when the verdict passes, else why not. The
// failure's summary carries every reason (the audit trail); its items and
// output say what the model must fix.
func (e Executor) judgeAttempt(ctx context.Context, r SWIRun, cs changeSet, run TestRun) (changeSet, *attemptFailure, error) {
	sim := run.Result
	ct, err := testsOfChange(ctx, r.Base, cs, r.Item.Tests, sim.DeclaredTests)
	if err != nil {
		return cs, nil, err
	}
	verdict, err := e.JudgeTests(ctx, r.baselines, run, ct)
	if err != nil {
		return cs, nil, err
	}
	if verdict.Passed {
		cs.Notes = VerdictNotes(verdict)
		return cs, nil, nil
	}
	sim = excuse(sim, verdict)
	fail := &attemptFailure{Summary: "tests did not pass: " + strings.Join(verdict.Problems, "; "), Items: diagnosticItems(sim.Diagnostics)}
	if !hasBlocking(sim) {
		// Nothing failed that the service reported (no test ran, a test is
		// missing, the service's claim contradicts its tests): the
		// verdict's reasons are the feedback; there is no output to read.
		fail.Items = verdictItems(verdict)
		return cs, fail, nil
	}
	if selfExplanatory(sim) {
		fail.Items = append(fail.Items, verdictItems(verdict)...)
		fail.Verbatim = failureOutput(sim)
		return cs, fail, nil
	}
	fail.Items = nil // the analyst reads the raw output instead
	diffs, err := changeDiffs(ctx, r.Base, cs)
	if err != nil {
		return cs, nil, err
	}
	interp, err := e.interpret(ctx, r, sim, diffs)
	if err != nil {
		return cs, nil, err
	}
	fail.Interpretation = &interp
	return cs, fail, nil
}
