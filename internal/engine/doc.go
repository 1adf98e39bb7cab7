// Package engine is CogWorks's step function: the one entry point every
// transport (CLI, GitHub Action, cron, webhook server) calls.
//
// Step performs one invocation for one issue (docs/spec.md §3): wake_up reads the
// issue, its comments (the state snapshot and lock claims) and, only when
// an approval label is present, its label events; pipeline.Decide picks
// not_triggered, backed_off, terminal, waiting or run. Only run writes:
// it takes the lock, validates the interface registry, runs the current
// stage's StageExecutor, writes results in crash-safe order (artifacts by
// the executor, then comments, then the snapshot, labels last) and releases
// the lock on every path.
//
// The lock is the cogworks:processing label plus a claim comment per run.
// GitHub assigns comment ids in order, so among live claims the lowest id
// wins: concurrent runs agree on exactly one owner without any shared
// memory. A run killed mid-step leaves a claim that expires after
// lock_timeout (the stale-lock rule).
//
// Errors: transient ones (retryable GitHub errors, cancellation) leave the
// pipeline state untouched so the next run retries; every other executor
// error — escalations, budget exhaustion, bugs — fails the pipeline with a
// structured report and cogworks:stage:failed.
package engine
