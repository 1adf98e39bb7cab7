package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testverdict"
)

func TestChangedExported(t *testing.T) {
	t.Parallel()
	const old = "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() {}\n"
	tests := []struct {
		name, now string
		want      []string
	}{
		{"unchanged", old, nil},
		{"a body rewritten", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 20 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() {}\n", []string{"B"}},
		{"a method and a constant", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 4\n\ntype D struct{}\n\nfunc (D) M() { _ = 1 }\n\nfunc hidden() {}\n", []string{"C", "M"}},
		{"removed and added", "package p\n\nfunc E() {}\n", []string{"A", "B", "C", "D", "E", "M"}},
		{"unexported only", "package p\n\n// A is kept.\nfunc A() int { return 1 }\n\nfunc B() int { return 2 }\n\nconst C = 3\n\ntype D struct{}\n\nfunc (D) M() {}\n\nfunc hidden() { _ = 2 }\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, changedExported("p/p.go", old, tt.now))
		})
	}
}

func TestScenarioTests(t *testing.T) {
	t.Parallel()
	src := "package p\n\nimport \"testing\"\n\nfunc TestScenarioA(t *testing.T) {}\n\nfunc TestOther(t *testing.T) {}\n"
	run := scenario.Run{Filter: "TestScenario", Overlay: map[string]string{"p/zz_test.go": src, "p/data.json": "{}"}}
	got := scenarioTests(run, nil)
	assert.Len(t, got, 1)
	assert.Equal(t, "TestScenarioA", got[0].Name, "only the tests the filter selects are required")
}

// A Python scenario's tests are the ones its service declares for the
// scenario's files (simulate's declared_tests); before, only _test.go
// files were read, so a Python scenario whose own test never ran was
// satisfied by any other passing test.
func TestScenarioTestsOfAPythonScenario(t *testing.T) {
	t.Parallel()
	const file = "tests/test_brake_scenario.py"
	run := scenario.Run{Filter: "brake", Overlay: map[string]string{file: "def test_brake_holds():\n    pass\n\ndef test_other():\n    pass\n"}}
	declared := []domain.TestDeclaration{
		{File: file, Name: "test_brake_holds", Package: file, Line: 1, EndLine: 2},
		{File: file, Name: "test_other", Package: file, Line: 4, EndLine: 5},
		{File: "tests/test_unrelated.py", Name: "test_brake_x", Package: "tests/test_unrelated.py", Line: 1, EndLine: 2},
	}
	assert.Equal(t, []testverdict.Decl{{Dir: file, Name: "test_brake_holds"}}, scenarioTests(run, declared))
	res := domain.SimulateResult{Passed: true, DeclaredTests: declared, Tests: []domain.TestResult{{Name: "test_other", Package: file, Passed: true}}}
	problems := scenarioProblems(res, run)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "planned tests did not run and pass: tests/test_brake_scenario.py.test_brake_holds")
}
