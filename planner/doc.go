// Package planner holds the planning stage's plan schema and its pure checks
// (docs/spec.md §5.4):
//
//   - Order builds the dependency graph with dominikbraun/graph and returns
//     the sub-work-items in a deterministic topological order: Kahn's
//     algorithm that always emits the smallest ready id, so items of the same
//     tier come out sorted by id and the same plan always gives the same
//     order. A cycle is reported as a *CycleError whose Path follows
//     depends_on edges and closes on its first element ("A → B → C → A"
//     means A depends on B, B on C and C on A).
//   - Validate checks a whole plan: at least one item, unique ids, at most
//     Limits.MaxItems items (else an *escalation.Error), no unknown dependencies,
//     no cycles, and every interface from the interface-design stage covered
//     by at least one item (else a *CoverageError).
//
// The package is pure: no I/O, no globals; every function is safe for
// concurrent use.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package planner
