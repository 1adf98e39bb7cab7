// Package linediff is CogWorks's one line diff: the edit script between
// two texts (a longest common subsequence of lines, bounded in memory)
// and its grouping into unified-diff hunks with a number of context
// lines. It is pure: no I/O, no dependencies.
//
// Three places render diffs from it: the review and code-generation
// prompts (stagekit.UnifiedDiff), the amended-specification comment
// (audit.TextDiff) and the GitHub simulator's pull-request patches, which
// each carried a copy before. go-difflib and go-udiff were weighed and
// kept out (docs/architecture.md, "Libraries instead of hand-written
// code"): they write other hunk headers and align lines differently.
package linediff
