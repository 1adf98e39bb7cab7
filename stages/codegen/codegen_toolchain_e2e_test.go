//go:build e2e

package codegen_test

// The real-toolchain runs of ASSERT-CODE-001…004 and -007: the scenarios
// of codeScenarios (codegen_value_test.go, where they also run on value
// fakes in plain go test) against the Go domain service, which compiles
// and tests the generated code.

import (
	"testing"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// runOnToolchain runs scenario id against the real Go domain service.
func runOnToolchain(t *testing.T, id string) {
	t.Helper()
	s := scenarioFor(t, id)
	s.run(t, stagetest.StartGoService(t))
}

func TestAssertCODE001_Toolchain_ValidationDiagnosticsAreFedBack(t *testing.T) {
	t.Parallel()
	runOnToolchain(t, "ASSERT-CODE-001")
}

func TestAssertCODE002_Toolchain_SelfExplanatoryTestFailureIsFedVerbatim(t *testing.T) {
	t.Parallel()
	runOnToolchain(t, "ASSERT-CODE-002")
}

func TestAssertCODE003_Toolchain_ObscureTestFailureIsInterpreted(t *testing.T) {
	t.Parallel()
	runOnToolchain(t, "ASSERT-CODE-003")
}

func TestAssertCODE004_Toolchain_RetryBudgetExhaustionEscalatesWithEveryAttempt(t *testing.T) {
	t.Parallel()
	runOnToolchain(t, "ASSERT-CODE-004")
}

func TestAssertCODE007_Toolchain_DependentSWIReceivesDependencyOutputs(t *testing.T) {
	t.Parallel()
	runOnToolchain(t, "ASSERT-CODE-007")
}
