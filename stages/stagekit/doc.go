// Package stagekit holds what several stage packages share: Deps (the
// ports and settings every stage gets, without GitHub, held-out scenarios
// or any one stage's own settings), the small GitHub read ports the
// stages compose their ports from, the attempt loop and its feedback,
// the cost ledger, sub-work-item bookkeeping (current, next, status
// labels, branches and sources), repository reads, the module and
// repository maps, and the Markdown and diff helpers. It imports no stage
// package.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package stagekit
