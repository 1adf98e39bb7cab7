// Package domaintest holds a fake domain service for tests of code that
// routes requests by artifact type (domain.Router) without a toolchain.
package domaintest

import (
	"context"
	"sync"

	"github.com/cogworks/cogworks/domain"
)

// Call is one request a Fake received.
type Call struct {
	Method string
	Paths  []string // the request's artifact paths
	Params domain.SimulateParams
}

// Fake is a domain service that records its calls. Simulate answers with
// Sims in turn (the last one repeats; a passing run of one test when
// empty); every other method answers with no diagnostics. It is safe for
// concurrent use.
type Fake struct {
	Sims  []domain.SimulateResult
	mu    sync.Mutex
	calls []Call
}

// Calls returns the calls so far, of method when it is not empty.
func (f *Fake) Calls(method string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (f *Fake) record(method string, req domain.Request, p domain.SimulateParams) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := Call{Method: method, Params: p}
	for _, a := range req.Artifacts {
		c.Paths = append(c.Paths, a.Path)
	}
	f.calls = append(f.calls, c)
	n := 0
	for _, c := range f.calls {
		if c.Method == domain.MethodSimulate {
			n++
		}
	}
	return n - 1
}

// Validate implements the validate method.
func (f *Fake) Validate(_ context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	f.record(domain.MethodValidate, req, domain.SimulateParams{})
	return domain.DiagnosticsResult{}, nil
}

// Normalise implements normalise: every artifact comes back unchanged.
func (f *Fake) Normalise(_ context.Context, req domain.Request) (domain.NormaliseResult, error) {
	f.record(domain.MethodNormalise, req, domain.SimulateParams{})
	return domain.NormaliseResult{Artifacts: req.Artifacts}, nil
}

// ReviewRules implements review_rules.
func (f *Fake) ReviewRules(_ context.Context, req domain.Request, _ domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	f.record(domain.MethodReviewRules, req, domain.SimulateParams{})
	return domain.DiagnosticsResult{}, nil
}

// Simulate implements simulate with the next of Sims.
func (f *Fake) Simulate(_ context.Context, req domain.Request, p domain.SimulateParams) (domain.SimulateResult, error) {
	i := f.record(domain.MethodSimulate, req, p)
	if len(f.Sims) == 0 {
		return domain.SimulateResult{Passed: true, Tests: []domain.TestResult{{Name: "test_ok", Package: "tests", Passed: true}}}, nil
	}
	return f.Sims[min(i, len(f.Sims)-1)], nil
}

// ExtractInterfaces implements extract_interfaces.
func (f *Fake) ExtractInterfaces(_ context.Context, req domain.Request) (domain.ExtractResult, error) {
	f.record(domain.MethodExtractInterfaces, req, domain.SimulateParams{})
	return domain.ExtractResult{}, nil
}

// RepoMap implements repo_map with an empty map.
func (f *Fake) RepoMap(_ context.Context, req domain.Request) (domain.RepoMapResult, error) {
	f.record(domain.MethodRepoMap, req, domain.SimulateParams{})
	return domain.RepoMapResult{}, nil
}
