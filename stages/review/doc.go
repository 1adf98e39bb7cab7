// Package review is the review stage (docs/spec.md §5 item 7): constraint
// validation first, then the four review passes over the SWI's diff,
// aggregated by the pure review package; blocking findings go back to code
// generation. Its Executor sees GitHub only through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package review
