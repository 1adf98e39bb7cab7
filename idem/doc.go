// Package idem holds CogWorks's idempotent write primitives (docs/spec.md §6).
//
// Every function here can be re-run on the same GitHub state and either
// makes the same change or detects that it is already made: an issue's
// labels are written as a desired set, one PUT only when it differs from
// the labels last read (SetLabelSet, the path of every label write), comments are
// upserted by their hidden key marker, PRs are found by head branch before
// one is created (a 422 "already exists" counts as found), issues are found
// by a body marker, and a branch gets a new commit only when its tree would
// change. Callers order writes so that a crash between any two of them is
// recovered by re-running: artifacts first, snapshot next, labels last.
//
// Each primitive declares the few GitHub methods it needs as its own small
// interface; *github.Client satisfies all of them.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package idem
