package testverdict

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

const pkg = "example.com/m/calc"

// run builds a simulate result the way an honest service reports it
// (Passed and ExitCode from the tests), then applies lie.
func run(tests map[string]string, lie func(*domain.SimulateResult)) *domain.SimulateResult {
	r := &domain.SimulateResult{Passed: true}
	for name, outcome := range tests {
		t := domain.TestResult{Name: name, Package: pkg, Passed: outcome != "fail", Skipped: outcome == "skip"}
		r.Tests = append(r.Tests, t)
		if outcome == "fail" {
			r.Passed, r.ExitCode = false, 1
			r.Diagnostics = append(r.Diagnostics, domain.Diagnostic{Severity: domain.SeverityBlocking,
				Category: domain.CategoryTestFailure, Message: name + " failed:\nwant 5"})
		}
	}
	if lie != nil {
		lie(r)
	}
	return r
}

func claimPassed(r *domain.SimulateResult) { r.Passed, r.ExitCode = true, 0 }

func TestJudge(t *testing.T) {
	t.Parallel()
	add := []Decl{{Dir: "calc", Name: "TestAdd"}}
	tests := []struct {
		name     string
		in       Input
		passed   bool
		problems []string // substrings, one per expected problem
		flaky    []string
		pre      []string
		retry    []string
	}{
		{name: "honest pass", in: Input{Head: *run(map[string]string{"TestAdd": "pass"}, nil), Required: add}, passed: true},
		{name: "passed:true and exit 0 while a test failed",
			in:       Input{Head: *run(map[string]string{"TestAdd": "fail", "TestOther": "pass"}, claimPassed)},
			problems: []string{"reported the run as passed, but example.com/m/calc.TestAdd failed", "tests failed: example.com/m/calc.TestAdd"}},
		{name: "passed:true with a non-zero exit",
			in:       Input{Head: *run(map[string]string{"TestAdd": "pass"}, func(r *domain.SimulateResult) { r.ExitCode = 2 })},
			problems: []string{"exited with code 2", "without a failing test"}},
		{name: "passed:true with no test run", in: Input{Head: *run(nil, nil)}, problems: []string{"no test ran"}},
		{name: "only skipped tests", in: Input{Head: *run(map[string]string{"TestAdd": "skip"}, nil)},
			problems: []string{"no test ran"}},
		{name: "failed without a failing test", in: Input{Head: domain.SimulateResult{ExitCode: 1}},
			problems: []string{"without a failing test", "no test ran"}},
		{name: "build error beside a failing test",
			in: Input{Head: *run(map[string]string{"TestAdd": "fail"}, func(r *domain.SimulateResult) {
				r.Diagnostics = append(r.Diagnostics, domain.Diagnostic{Severity: domain.SeverityBlocking, Category: domain.CategoryTypeError, Message: "undefined: x"})
			})},
			problems: []string{"other than a failing test: undefined: x", "tests failed"}},
		{name: "planned test did not run",
			in:       Input{Head: *run(map[string]string{"TestOther": "pass"}, nil), Required: add},
			problems: []string{"planned tests did not run and pass: calc.TestAdd"}},
		{name: "planned test skipped",
			in:       Input{Head: *run(map[string]string{"TestAdd": "skip", "TestOther": "pass"}, nil), Required: add},
			problems: []string{"planned tests did not run and pass: calc.TestAdd"}},
		{name: "planned test in another directory does not count",
			in:       Input{Head: *run(map[string]string{"TestAdd": "pass"}, nil), Required: []Decl{{Dir: "other", Name: "TestAdd"}}},
			problems: []string{"planned tests did not run"}},
		{name: "a base test missing on the head",
			in:       Input{Head: *run(map[string]string{"TestAdd": "pass"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestSub": "pass"}, nil)},
			problems: []string{"passed on the base tree did not run on the change: example.com/m/calc.TestSub"}},
		{name: "a base test skipped on the head",
			in:       Input{Head: *run(map[string]string{"TestAdd": "pass", "TestSub": "skip"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestSub": "pass"}, nil)},
			problems: []string{"did not run on the change: example.com/m/calc.TestSub"}},
		{name: "a base test whose declaration the change removed",
			in: Input{Head: *run(map[string]string{"TestAdd": "pass"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestSub": "pass"}, nil),
				Removed: []Decl{{Dir: "calc", Name: "TestSub"}}},
			passed: true},
		{name: "a parametrized instance renamed by a changed parameter table",
			// python-semver d8813b6 changes expected values in a
			// @pytest.mark.parametrize table: its ids change with them.
			in: Input{Head: *run(map[string]string{"test_bump[3.4.5-rc.1.0]": "pass", "test_bump[1.0-2.0]": "pass"}, nil),
				Base: run(map[string]string{"test_bump[3.4.5-rc.2]": "pass", "test_bump[1.0-2.0]": "pass"}, nil)},
			passed: true},
		{name: "a parametrized test whose every instance is gone",
			in: Input{Head: *run(map[string]string{"test_other": "pass"}, nil),
				Base: run(map[string]string{"test_bump[1.0-2.0]": "pass", "test_other": "pass"}, nil)},
			problems: []string{"did not run on the change: example.com/m/calc.test_bump[1.0-2.0]"}},
		{name: "a subtest dropped from a test the change rewrote",
			in: Input{Head: *run(map[string]string{"TestAdd": "pass"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestAdd/neg": "pass"}, nil),
				Changed: add},
			passed: true},
		{name: "pre-existing failure of an unchanged test is excused",
			in:     Input{Head: *run(map[string]string{"TestAdd": "pass", "TestOld": "fail"}, nil), Base: run(map[string]string{"TestOld": "fail"}, nil)},
			passed: true, pre: []string{"example.com/m/calc.TestOld"}},
		{name: "pre-existing failure of a test the change rewrote is not excused",
			in: Input{Head: *run(map[string]string{"TestAdd": "fail", "TestOther": "pass"}, nil), Base: run(map[string]string{"TestAdd": "fail"}, nil),
				Changed: add, Rewritten: add},
			problems: []string{"declared in a test file the change wrote"}},
		{name: "pre-existing failure of an untouched test in a file the change edited is excused",
			in: Input{Head: *run(map[string]string{"TestAdd": "fail", "TestOther": "pass"}, nil), Base: run(map[string]string{"TestAdd": "fail"}, nil),
				Changed: add},
			passed: true, pre: []string{"example.com/m/calc.TestAdd"}},
		{name: "a test in a file the change edited is never flaky, even untouched",
			in: Input{Head: *run(map[string]string{"TestAdd": "fail", "TestOther": "pass"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestOther": "pass"}, nil),
				Rerun: run(map[string]string{"TestAdd": "pass"}, nil), Changed: add},
			problems: []string{"declared in a test file the change wrote"}},
		{name: "unchanged test failing first asks for a re-run",
			in:       Input{Head: *run(map[string]string{"TestAdd": "pass", "TestOld": "fail"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestOld": "pass"}, nil)},
			problems: []string{"tests failed: example.com/m/calc.TestOld"}, retry: []string{"TestOld"}},
		{name: "flaky: unchanged, passed at base, passes alone",
			in: Input{Head: *run(map[string]string{"TestAdd": "pass", "TestOld": "fail"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestOld": "pass"}, nil),
				Rerun: run(map[string]string{"TestOld": "pass"}, nil)},
			passed: true, flaky: []string{"example.com/m/calc.TestOld"}},
		{name: "a re-run that skips the test excuses nothing",
			in: Input{Head: *run(map[string]string{"TestAdd": "pass", "TestOld": "fail"}, nil), Base: run(map[string]string{"TestAdd": "pass", "TestOld": "pass"}, nil),
				Rerun: run(map[string]string{"TestOld": "skip"}, nil)},
			problems: []string{"tests failed: example.com/m/calc.TestOld"}},
		{name: "a test the change added is never flaky",
			in: Input{Head: *run(map[string]string{"TestAdd": "fail", "TestOther": "pass"}, nil), Base: run(map[string]string{"TestOther": "pass"}, nil),
				Rerun: run(map[string]string{"TestAdd": "pass"}, nil), Changed: add, Required: add},
			problems: []string{"tests failed: example.com/m/calc.TestAdd (example.com/m/calc.TestAdd is declared in a test file the change wrote, so it is never excused)"}},
		{name: "a test absent from the base run is never flaky",
			in: Input{Head: *run(map[string]string{"TestNew": "fail", "TestOther": "pass"}, nil), Base: run(map[string]string{"TestOther": "pass"}, nil),
				Rerun: run(map[string]string{"TestNew": "pass"}, nil)},
			problems: []string{"did not run on the base tree, so it is never excused"}},
		{name: "no re-run while another problem fails the run anyway",
			in:       Input{Head: *run(map[string]string{"TestOld": "fail", "TestAdd": "pass"}, nil), Base: run(map[string]string{"TestOld": "pass", "TestGone": "pass", "TestAdd": "pass"}, nil)},
			problems: []string{"tests failed", "did not run on the change"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := Judge(tt.in)
			assert.Equal(t, tt.passed, v.Passed, "problems: %q", v.Problems)
			require.Len(t, v.Problems, len(tt.problems), "problems: %q", v.Problems)
			for i, p := range tt.problems {
				assert.Contains(t, v.Problems[i], p)
			}
			assert.Equal(t, tt.flaky, excuseKeys(v.Flaky))
			assert.Equal(t, tt.pre, excuseKeys(v.PreExisting))
			var retry []string
			for _, r := range v.Retry {
				retry = append(retry, r.Name)
			}
			assert.Equal(t, tt.retry, retry)
		})
	}
}

func excuseKeys(es []Excuse) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key.String())
	}
	return out
}

func TestTestFuncs(t *testing.T) {
	t.Parallel()
	src := "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {}\nfunc Test_x(t *testing.T) {}\nfunc Testing(t *testing.T) {}\nfunc TestMain(m *testing.M) {}\nfunc FuzzAdd(f *testing.F) {}\nfunc helper(t *testing.T) {}\nfunc TestTwo(a, b int) {}\nfunc BenchmarkAdd(b *testing.B) {}\n"
	assert.Equal(t, []Decl{{"calc", "TestAdd"}, {"calc", "Test_x"}, {"calc", "FuzzAdd"}}, TestFuncs("calc/add_test.go", src))
	assert.Nil(t, TestFuncs("calc/add.go", src), "not a test file")
	assert.Nil(t, TestFuncs("calc/add_test.go", "//go:build linux\n\n"+src), "a constrained file may not run")
	assert.Nil(t, TestFuncs("calc/add_test.go", "package"), "does not parse")
}

func TestRewrittenTests(t *testing.T) {
	t.Parallel()
	old := "package calc\n\nimport \"testing\"\n\nfunc TestKeep(t *testing.T) {}\n\nfunc TestEdit(t *testing.T) {}\n"
	now := "package calc\n\nimport \"testing\"\n\nfunc TestKeep(t *testing.T) {}\n\nfunc TestEdit(t *testing.T) { t.Log(1) }\n\nfunc TestNew(t *testing.T) {}\n"
	assert.Equal(t, []Decl{{"calc", "TestEdit"}, {"calc", "TestNew"}}, RewrittenTests("calc/x_test.go", old, now))
	assert.Equal(t, []Decl{{"calc", "TestKeep"}, {"calc", "TestEdit"}}, RewrittenTests("calc/x_test.go", "", old), "a new file: every test is the change's")
}

func TestPlannedTests(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"FuzzParse", "TestAdd", "TestSub_Neg"},
		PlannedTests("TestAdd covers 2+3 and TestAdd/overflow; TestSub_Neg, FuzzParse. Tests run with TestMain."))
	assert.Nil(t, PlannedTests("Publishing keeps the frame."))
	assert.True(t, strings.HasPrefix(Decl{Dir: ".", Name: "TestA"}.String(), "TestA"))
}
