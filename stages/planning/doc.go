// Package planning is the planning stage (docs/spec.md §5 item 4): it
// asks for a plan of sub-work-items, validates it with planner (cycles,
// granularity, interface coverage), records the plan comment and creates
// one sub-issue per item, idempotently. Its Executor sees GitHub only
// through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package planning
