package stages

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/domain"
)

// The baseline lives in the stage, not in the domain service: it is one
// more simulate call on the tree without the change, so every domain
// service (not only Go's) gets it with no Extension API change, and the
// stage is where "a failure the change did not cause" is decided. It runs
// only when an attempt's tests fail, at most once per base tree and
// package set (BaselineCache).

// BaselineCache keeps the test results of base trees (the SWI's base
// without the generated change), keyed by repository, ref, the content of
// the base's overlay files and the package set, so the base runs once
// however many attempts fail. It is safe for concurrent use; the zero
// value is ready.
type BaselineCache struct {
	mu      sync.Mutex
	entries map[string]domain.SimulateResult
}

func (c *BaselineCache) get(key string) (domain.SimulateResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.entries[key]
	return r, ok
}

func (c *BaselineCache) put(key string, r domain.SimulateResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]domain.SimulateResult{}
	}
	c.entries[key] = r
}

// baselineKey names a base tree and package set: the workspace's
// repository and ref, every overlay artifact (path and content hash) and
// the packages.
func baselineKey(req domain.Request, pkgs []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", req.Repository.Path, req.Repository.Ref)
	arts := slices.Clone(req.Artifacts)
	slices.SortFunc(arts, func(a, b domain.Artifact) int { return strings.Compare(a.Path, b.Path) })
	for _, a := range arts {
		sum := sha256.Sum256([]byte(a.Content))
		fmt.Fprintf(h, "%s\x00%t\x00%x\x00", a.Path, a.Delete, sum)
	}
	fmt.Fprintf(h, "%s", strings.Join(pkgs, "\x00"))
	return hex.EncodeToString(h.Sum(nil))
}

// testVerdict sorts a failed run's failing tests: New are regressions
// (they pass, or do not exist, at base and fail again on a re-run),
// PreExisting already fail at base, Flaky failed once and passed on a
// re-run of the same tree.
type testVerdict struct {
	New         []domain.TestResult
	PreExisting []testKey
	Flaky       []testKey
}

// excused is every failing test that does not fail the attempt.
func (v testVerdict) excused() map[testKey]bool {
	m := map[testKey]bool{}
	for _, k := range append(slices.Clone(v.PreExisting), v.Flaky...) {
		m[k] = true
	}
	return m
}

// notes are the audit trail's lines for excused failures.
func (v testVerdict) notes() []string {
	var out []string
	if len(v.PreExisting) > 0 {
		out = append(out, "pre-existing test failures (fail at base too, not regressions): "+joinKeys(v.PreExisting))
	}
	if len(v.Flaky) > 0 {
		out = append(out, "flaky tests (failed, then passed on a re-run of the same tree): "+joinKeys(v.Flaky))
	}
	return out
}

type testKey struct{ pkg, name string }

func (k testKey) String() string { return k.pkg + "." + k.name }

func joinKeys(ks []testKey) string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.String()
	}
	return strings.Join(out, ", ")
}

func keyOf(t domain.TestResult) testKey { return testKey{t.Package, t.Name} }

// onlyTestFailures reports whether every blocking problem of a failed run
// is a failing test: a build error or a package that failed without a
// failing test (a panic in init, a timeout) is always a regression.
func onlyTestFailures(sim domain.SimulateResult) bool {
	failing := failingTests(sim)
	if len(failing) == 0 {
		return false
	}
	for _, d := range sim.Diagnostics {
		if d.EffectiveSeverity() != domain.SeverityBlocking {
			continue
		}
		if d.Category != domain.CategoryTestFailure || testOfDiagnostic(d, failing) == nil {
			return false
		}
	}
	return true
}

// testOfDiagnostic finds the failing test a test_failure diagnostic
// reports (the service words it "<name> failed:").
func testOfDiagnostic(d domain.Diagnostic, tests []domain.TestResult) *domain.TestResult {
	for i, t := range tests {
		if strings.HasPrefix(d.Message, t.Name+" failed:") {
			return &tests[i]
		}
	}
	return nil
}

// classifyFailures compares a failed run with the base run and, for the failures
// the base does not explain, with a re-run of the same tree (nil when
// there was none).
func classifyFailures(head, base domain.SimulateResult, rerun *domain.SimulateResult) testVerdict {
	var v testVerdict
	atBase := map[testKey]bool{}
	for _, t := range failingTests(base) {
		atBase[keyOf(t)] = true
	}
	passedOnRerun := map[testKey]bool{}
	if rerun != nil {
		for _, t := range rerun.Tests {
			if t.Passed {
				passedOnRerun[keyOf(t)] = true
			}
		}
	}
	for _, t := range failingTests(head) {
		switch k := keyOf(t); {
		case atBase[k]:
			v.PreExisting = append(v.PreExisting, k)
		case passedOnRerun[k]:
			v.Flaky = append(v.Flaky, k)
		default:
			v.New = append(v.New, t)
		}
	}
	return v
}

// rerunParams selects the top-level tests of failing for a re-run.
func rerunParams(failing []domain.TestResult) domain.SimulateParams {
	var names, pkgs []string
	for _, t := range failing {
		names = append(names, regexp.QuoteMeta(strings.SplitN(t.Name, "/", 2)[0]))
		pkgs = append(pkgs, t.Package)
	}
	slices.Sort(names)
	slices.Sort(pkgs)
	return domain.SimulateParams{Packages: slices.Compact(pkgs), Filter: "^(" + strings.Join(slices.Compact(names), "|") + ")$"}
}

// excuse returns sim with the excused tests marked passed and their
// diagnostics dropped, so the feedback names only the regressions.
func excuse(sim domain.SimulateResult, v testVerdict) domain.SimulateResult {
	ex := v.excused()
	if len(ex) == 0 {
		return sim
	}
	out := sim
	out.Tests = slices.Clone(sim.Tests)
	var dropped []domain.TestResult
	for i, t := range out.Tests {
		if ex[keyOf(t)] {
			dropped = append(dropped, t)
			out.Tests[i].Passed = true
		}
	}
	out.Diagnostics = nil
	for _, d := range sim.Diagnostics {
		if d.Category == domain.CategoryTestFailure && testOfDiagnostic(d, dropped) != nil {
			continue
		}
		out.Diagnostics = append(out.Diagnostics, d)
	}
	return out
}

// judgeTests decides whether a failed simulation is a regression. It runs
// the packages' tests on base (cached) and re-runs the failures the base
// does not explain once on the same tree. It returns the verdict and
// whether the attempt passes despite the failures.
func (e codeGenExecutor) judgeTests(ctx context.Context, cache *BaselineCache, base, head domain.Request, pkgs []string, sim domain.SimulateResult) (testVerdict, bool, error) {
	if sim.Passed || !onlyTestFailures(sim) {
		return testVerdict{New: failingTests(sim)}, sim.Passed, nil
	}
	key := baselineKey(base, pkgs)
	baseRes, ok := cache.get(key)
	if !ok {
		var err error
		baseRes, err = e.d.Domain.Simulate(ctx, base, domain.SimulateParams{Packages: pkgs})
		if err != nil {
			return testVerdict{}, false, fmt.Errorf("simulate the base tree of %s: %w", strings.Join(pkgs, " "), err)
		}
		cache.put(key, baseRes)
	}
	v := classifyFailures(sim, baseRes, nil)
	if len(v.New) > 0 {
		again, err := e.d.Domain.Simulate(ctx, head, rerunParams(v.New))
		if err != nil {
			return testVerdict{}, false, fmt.Errorf("re-run failing tests of %s: %w", strings.Join(pkgs, " "), err)
		}
		v = classifyFailures(sim, baseRes, &again)
	}
	return v, len(v.New) == 0, nil
}

// testNotes renders excused failures as sentences after a summary.
func testNotes(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	return " Not regressions: " + strings.Join(notes, "; ") + "."
}

// start is the tree the SWI's branch starts from: the default branch with
// the interface and dependency files, without the SWI's own earlier output
// (a remediation may resubmit that).
func (r swiRun) start() baseTree {
	t := baseTree{Repo: r.base.Repo, Overlay: map[string]string{}}
	maps.Copy(t.Overlay, r.src.Interfaces)
	maps.Copy(t.Overlay, r.src.Deps)
	return t
}

// emptyChange fails an answer that leaves the base tree as it is (every
// file it writes already has that content, nothing deleted): committed,
// it would leave the branch equal to its base, and GitHub refuses a PR
// with no commits.
func emptyChange(ctx context.Context, base baseTree, cs changeSet) (*attemptFailure, error) {
	if len(cs.Deleted) > 0 {
		return nil, nil
	}
	for p, content := range cs.Files {
		old, ok, err := base.read(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("compare %s with the base: %w", p, err)
		}
		if !ok || old != content {
			return nil, nil
		}
	}
	return &attemptFailure{Summary: "the answer changes nothing: every file it writes already has that content on the base branch"}, nil
}

// failingTests returns the failed leaf tests (a parent failing only because
// a subtest failed is left out).
func failingTests(res domain.SimulateResult) []domain.TestResult {
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
