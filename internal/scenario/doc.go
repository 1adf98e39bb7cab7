// Package scenario implements CogWorks's held-out scenario validation (docs/spec.md §12).
//
// Scenarios are human-authored end-to-end behaviour specifications stored in
// .cogworks/scenarios/*.toml, *.yaml or *.yml. They are holdout material: this
// package never hands a scenario's source, description or overlay test code to
// anything that feeds code generation — Result.Feedback names the scenario, the
// criterion and why it failed, nothing more.
//
// The flow is:
//
//   - LoadScenarios and LoadTwins read and fully validate the repository's
//     configuration; every error is a *LoadError naming the file, the scenario
//     id and the field.
//   - Select keeps the scenarios whose covers overlap a sub-work-item's
//     interfaces (ASSERT-SCEN-001).
//   - Validate runs each selected scenario exactly Trajectories times through
//     the Simulator port, each run a fresh call with its own copy of the overlay
//     (ASSERT-SCEN-003). A scenario's twin is started and probed before its first
//     trajectory, reset between trajectories and stopped after the last one,
//     also when a trajectory or the context fails (ASSERT-SCEN-009).
//   - Each trajectory's Observation is evaluated against the acceptance and
//     failure criteria by Evaluate, which is deterministic and does no I/O apart
//     from the optional Judge port used by llm_judge.
//
// Scoring: a trajectory is satisfied iff every acceptance criterion passes
// (a criterion skipped by its when condition counts as passed). A scenario's
// score is satisfied/trajectories (ASSERT-SCEN-004). The overall score is
// trajectory-weighted: the satisfied trajectories of all selected scenarios
// divided by all their trajectories. Validation passes iff overall ≥ threshold
// (ASSERT-SCEN-005/006) and no trajectory hit a failure criterion
// (ASSERT-SCEN-007). A failure criterion is "hit" when it holds on the
// trajectory (e.g. content_matches finds "panic"); a skipped failure criterion
// is not hit. With no selected scenario the result is Skipped, which also
// counts as Passed so the pipeline proceeds (ASSERT-SCEN-008).
//
// Infrastructure failures — a Simulator error, a twin that cannot start, a
// judge that errors — are returned as errors from Validate rather than
// counted against the generated code.
//
// Trust: History keeps the recent trajectory outcomes of each scenario; the
// trust score is the pass rate over them, labelled Trusted (≥ 0.95),
// Unstable (≥ 0.80) or Unreliable.
//
// Nothing here is safe for concurrent mutation; Validate itself runs
// scenarios and trajectories sequentially so twins are never shared.
package scenario
