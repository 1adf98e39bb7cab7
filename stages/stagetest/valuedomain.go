package stagetest

import (
	"context"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/domain"
)

// ValueDomain is a domain service made of values: it runs no toolchain,
// so tests on it run in plain `go test ./...` while their real-toolchain
// versions keep -tags e2e. Each method answers from its function field;
// a nil field reports nothing wrong (Normalise returns the artifacts as
// they came, Simulate a passing run with no tests).
type ValueDomain struct {
	// NormaliseFn returns the diagnostics of normalising req (syntax
	// errors); the artifacts come back unchanged.
	NormaliseFn func(req domain.Request) []domain.Diagnostic
	// ValidateFn returns the diagnostics of validating req.
	ValidateFn func(req domain.Request) []domain.Diagnostic
	// SimulateFn answers a test run of req.
	SimulateFn func(req domain.Request, p domain.SimulateParams) domain.SimulateResult

	mu        sync.Mutex
	simulated int
}

// Normalise implements stagekit.Domain.
func (d *ValueDomain) Normalise(_ context.Context, req domain.Request) (domain.NormaliseResult, error) {
	res := domain.NormaliseResult{Artifacts: req.Artifacts}
	if d.NormaliseFn != nil {
		res.Diagnostics = d.NormaliseFn(req)
	}
	return res, nil
}

// Validate implements stagekit.Domain.
func (d *ValueDomain) Validate(_ context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	if d.ValidateFn == nil {
		return domain.DiagnosticsResult{}, nil
	}
	return domain.DiagnosticsResult{Diagnostics: d.ValidateFn(req)}, nil
}

// ReviewRules implements stagekit.Domain: no rule fires.
func (d *ValueDomain) ReviewRules(context.Context, domain.Request, domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	return domain.DiagnosticsResult{}, nil
}

// ExtractInterfaces implements stagekit.Domain: nothing is declared.
func (d *ValueDomain) ExtractInterfaces(context.Context, domain.Request) (domain.ExtractResult, error) {
	return domain.ExtractResult{}, nil
}

// Simulate implements stagekit.Domain and counts the runs.
func (d *ValueDomain) Simulate(_ context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	d.mu.Lock()
	d.simulated++
	d.mu.Unlock()
	if d.SimulateFn == nil {
		return domain.SimulateResult{Passed: true}, nil
	}
	return d.SimulateFn(req, p), nil
}

// Simulations is how many test runs were asked for.
func (d *ValueDomain) Simulations() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.simulated
}

// ArtifactContent returns the content req carries for path.
func ArtifactContent(req domain.Request, path string) (string, bool) {
	for _, a := range req.Artifacts {
		if a.Path == path && !a.Delete {
			return a.Content, true
		}
	}
	return "", false
}

// Carries reports whether req carries path with content containing text.
func Carries(req domain.Request, path, text string) bool {
	c, ok := ArtifactContent(req, path)
	return ok && strings.Contains(c, text)
}

// PassingRun is a run in which the named tests of pkg passed.
func PassingRun(pkg string, names ...string) domain.SimulateResult {
	r := domain.SimulateResult{Passed: true}
	for _, n := range names {
		r.Tests = append(r.Tests, domain.TestResult{Name: n, Package: pkg, Passed: true})
	}
	return r
}

// FailingRun is a run in which test name of pkg failed with message, at
// loc; explains says whether the failure explains itself ("" when not).
func FailingRun(pkg, name string, loc domain.Location, message string, explains domain.Explanation) domain.SimulateResult {
	return domain.SimulateResult{
		ExitCode: 1, Output: "--- FAIL: " + name + "\n" + message + "\nFAIL\n",
		Tests: []domain.TestResult{{Name: name, Package: pkg, Output: message}},
		Diagnostics: []domain.Diagnostic{{Artifact: loc.File, Location: loc, Severity: domain.SeverityBlocking,
			Category: domain.CategoryTestFailure, Message: name + " failed:\n" + message, Explains: explains}},
	}
}
