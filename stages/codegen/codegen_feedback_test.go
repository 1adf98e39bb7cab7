package codegen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

// failed is a failed simulation with one blocking test_failure
// diagnostic per explanation ("" for one that does not explain itself).
func failed(explains ...domain.Explanation) domain.SimulateResult {
	res := domain.SimulateResult{ExitCode: 1}
	for i, e := range explains {
		res.Diagnostics = append(res.Diagnostics, domain.Diagnostic{
			Artifact: "p", Location: domain.Location{File: "p/x_test.go", Line: 9 + i},
			Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure,
			Message: "TestX failed:\n    x_test.go:9: something\n", Explains: e,
		})
	}
	return res
}

func TestSelfExplanatory(t *testing.T) {
	t.Parallel()
	compile := domain.Diagnostic{Category: domain.CategoryTypeError, Severity: domain.SeverityBlocking, Explains: domain.ExplainsCompileError}
	warning := domain.Diagnostic{Category: domain.CategoryStyleViolation, Severity: domain.SeverityWarning}
	tests := []struct {
		name string
		res  domain.SimulateResult
		want bool
	}{
		{"compile error", domain.SimulateResult{ExitCode: 1, Diagnostics: []domain.Diagnostic{compile}}, true},
		{"compile error beside an unexplained test", domain.SimulateResult{ExitCode: 1, Diagnostics: append(failed("").Diagnostics, compile)}, true},
		{"assertion diff", failed(domain.ExplainsAssertion), true},
		{"panic with stack", failed(domain.ExplainsPanic), true},
		{"timeout", failed(domain.ExplainsTimeout), true},
		{"every failure explained", failed(domain.ExplainsAssertion, domain.ExplainsPanic), true},
		{"warnings do not count", domain.SimulateResult{ExitCode: 1, Diagnostics: append(failed(domain.ExplainsAssertion).Diagnostics, warning)}, true},
		{"bare failure", failed(""), false},
		{"one obscure among clear ones", failed(domain.ExplainsAssertion, ""), false},
		{"explanation this version does not know", failed("telepathy"), false},
		{"service before API 1.2 says nothing", domain.SimulateResult{ExitCode: 1, Output: "--- FAIL: TestX\n    x_test.go:9: got 1, want 2\n",
			Diagnostics: []domain.Diagnostic{{Category: domain.CategoryTestFailure, Severity: domain.SeverityBlocking, Message: "got 1, want 2"}}}, false},
		{"failure without diagnostics", domain.SimulateResult{ExitCode: 1, Output: "FAIL\texample.com/w\t0.01s\n"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, selfExplanatory(tt.res))
		})
	}
}

func TestFailureOutputAndRender(t *testing.T) {
	t.Parallel()
	res := domain.SimulateResult{ExitCode: 1, Output: "whole run\n", Diagnostics: []domain.Diagnostic{
		{Artifact: "p/x_test.go", Location: domain.Location{File: "p/x_test.go", Line: 7}, Severity: domain.SeverityBlocking,
			Category: domain.CategoryTestFailure, Message: "TestBad failed:\ngot 1, want 2", Explains: domain.ExplainsAssertion},
		{Artifact: "p/x.go", Severity: domain.SeverityWarning, Category: domain.CategoryStyleViolation, Message: "style"},
	}}
	out := failureOutput(res)
	assert.Equal(t, "--- p/x_test.go:7\nTestBad failed:\ngot 1, want 2\n", out, "only blocking failures, verbatim")
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
		Interpretation: &Interpretation{Summary: "s", LikelyCause: "c", SuggestedFix: "f", Locations: []string{"a.go:3"}},
	}
	text := f.Render(2)
	assert.Contains(t, text, "Attempt 2 was rejected: tests failed")
	assert.Contains(t, text, "- [blocking type_error] a.go:3:2: undefined: x")
	assert.NotContains(t, text, "style", "warnings do not fail an attempt")
	assert.NotContains(t, text, "unknown categories")
	assert.Contains(t, text, "- likely cause: c\n- suggested fix: f\n- locations: a.go:3")
	assert.Equal(t, []string{"[blocking type_error] a.go:3:2: undefined: x", "interpretation: s"}, f.Lines())
}
