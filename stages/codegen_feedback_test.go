package stages

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

func failed(outputs ...string) domain.SimulateResult {
	res := domain.SimulateResult{ExitCode: 1}
	for i, o := range outputs {
		res.Tests = append(res.Tests, domain.TestResult{Name: "TestX" + strings.Repeat("X", i), Package: "p", Output: o})
	}
	return res
}

func TestSelfExplanatory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		res  domain.SimulateResult
		want bool
	}{
		{"compile error", domain.SimulateResult{ExitCode: 1, Diagnostics: []domain.Diagnostic{{Category: domain.CategoryTypeError, Severity: domain.SeverityBlocking}}}, true},
		{"syntax error", domain.SimulateResult{ExitCode: 1, Diagnostics: []domain.Diagnostic{{Category: domain.CategorySyntaxError}}}, true},
		{"build failed line", domain.SimulateResult{ExitCode: 1, Output: "FAIL\texample.com/w [build failed]\n"}, true},
		{"got/want diff", failed("    x_test.go:9: Sum() got 3, want 4\n"), true},
		{"want/got diff", failed("    x_test.go:9: want 4, got 3\n"), true},
		{"testify expected/actual", failed("Error: Not equal:\n expected: 4\n actual  : 3\n"), true},
		{"panic with stack", failed("panic: runtime error: index out of range [3]\n\ngoroutine 7 [running]:\nexample.com/w.F()\n"), true},
		{"timeout", failed("panic: test timed out after 30s\n"), true},
		{"bare failure", failed("    x_test.go:9: counter misbehaves\n"), false},
		{"panic without stack", failed("panic: boom\n"), false},
		{"one obscure among clear ones", failed("got 1, want 2\n", "something is off\n"), false},
		{"package failure without tests", domain.SimulateResult{ExitCode: 1, Output: "FAIL\texample.com/w\t0.01s\n"}, false},
		{"parent failing only through its subtest", domain.SimulateResult{ExitCode: 1, Tests: []domain.TestResult{
			{Name: "TestA", Package: "p", Output: "--- FAIL: TestA\n"},
			{Name: "TestA/case", Package: "p", Output: "got 1, want 2\n"},
		}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, selfExplanatory(tt.res))
		})
	}
}

func TestFailureOutputAndRender(t *testing.T) {
	t.Parallel()
	res := domain.SimulateResult{ExitCode: 1, Output: "whole run\n", Tests: []domain.TestResult{
		{Name: "TestOK", Package: "p", Passed: true, Output: "ok\n"},
		{Name: "TestBad", Package: "p", Output: "got 1, want 2"},
	}}
	out := failureOutput(res)
	assert.Equal(t, "--- TestBad (p)\ngot 1, want 2\n", out, "only failing tests, verbatim")
	assert.Equal(t, "whole run\n", failureOutput(domain.SimulateResult{Output: "whole run\n"}))
	long := failureOutput(domain.SimulateResult{Output: strings.Repeat("x", maxVerbatim+10)})
	assert.True(t, strings.HasPrefix(long, "…(truncated)\n"))

	f := attemptFailure{
		Summary: "tests failed",
		Items: diagnosticItems([]domain.Diagnostic{
			{Artifact: "a.go", Location: domain.Location{File: "a.go", Line: 3, Column: 2}, Severity: domain.SeverityBlocking, Category: domain.CategoryTypeError, Message: "undefined: x"},
			{Artifact: "a.go", Severity: domain.SeverityWarning, Category: domain.CategoryStyleViolation, Message: "style"},
			{Artifact: "b.go", Severity: domain.SeverityBlocking, Category: "made_up", Message: "unknown categories are informational"},
		}),
		Interpretation: &interpretation{Summary: "s", LikelyCause: "c", SuggestedFix: "f", Locations: []string{"a.go:3"}},
	}
	text := f.render(2)
	assert.Contains(t, text, "Attempt 2 was rejected: tests failed")
	assert.Contains(t, text, "- [blocking type_error] a.go:3:2: undefined: x")
	assert.NotContains(t, text, "style", "warnings do not fail an attempt")
	assert.NotContains(t, text, "unknown categories")
	assert.Contains(t, text, "- likely cause: c\n- suggested fix: f\n- locations: a.go:3")
	assert.Equal(t, []string{"[blocking type_error] a.go:3:2: undefined: x", "interpretation: s"}, f.lines())
}
