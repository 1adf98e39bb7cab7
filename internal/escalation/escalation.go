// Package escalation is CogWorks' one error vocabulary for "this goes back
// to humans": a pure package (no imports of the project's own) so the pure
// cores (classify, planner), the stage executors and the engine share a
// single type that callers branch on with errors.As.
//
// An escalation is not a crash and not a transient failure: the stage
// stops, the engine writes a failure report listing every attempt, and a
// human decides (split the issue, raise a limit, add cogworks:retry).
package escalation

// Attempt is one executor attempt as a failure report lists it.
type Attempt struct {
	N           int
	Summary     string
	Diagnostics []string
}

// Error is a structured hand-back to humans. Reason is what the failure
// report and status comment say; Code, when set, is a stable
// machine-friendly kind (e.g. "scope_exceeded") for callers and tests that
// branch on the kind rather than the wording.
type Error struct {
	Code     string
	Reason   string
	Attempts []Attempt
}

// Error implements error: "escalation: <reason>", or
// "escalation (<code>): <reason>" when the kind is set.
func (e *Error) Error() string {
	if e.Code != "" {
		return "escalation (" + e.Code + "): " + e.Reason
	}
	return "escalation: " + e.Reason
}
