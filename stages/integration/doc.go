// Package integration is the integration stage (docs/spec.md §5 item 8):
// it opens the sub-work-item's PR (never merging, approving or requesting
// changes), posts non-blocking findings inline in one review, marks the
// SWI completed and moves on to the next. Its Executor sees GitHub only
// through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package integration
