// Package scenario is the scenario validation stage (docs/spec.md §12):
// the one stage given the held-out scenarios and their twins (Deps). It
// chooses the scenarios the change touches, runs them through the domain
// service, records the trust history and posts the results; feedback to
// code generation never carries a scenario's source. Its Executor sees
// GitHub only through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package scenario
