// Package classify holds the intake stage's classification schema and its
// deterministic post-processing (docs/spec.md §5.1):
//
//   - Finalize applies the safety override: any affected module equal to, or
//     nested under, a configured safety-critical module forces
//     SafetyAffecting=true; the LLM's verdict is never downgraded.
//   - CheckScope compares the estimated scope with configured thresholds and
//     returns an *escalation.Error (a value, not a crash) when it is exceeded.
//   - Validate checks enum values and field sanity, naming the field.
//
// The package is pure: no I/O, no globals; every function is safe for
// concurrent use.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package classify
