// Package architecture is the architecture stage (docs/spec.md §5 item 2):
// it writes the specification, validates it against the repository's
// modules, constraints and interface registry (ValidateSpecification) and
// opens the specification PR through idem. Its Executor sees GitHub only
// through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package architecture
