// Package interfaces is the interface design stage (docs/spec.md §5 item
// 3): it proposes interface files, has the domain service validate and
// extract them, records the interface list in the snapshot and opens the
// interface PR through idem. Its Executor sees GitHub only through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package interfaces
