// Package review holds the review stage's pass schema and its pure decision
// logic (docs/spec.md §5.7, §13):
//
//   - Aggregate combines every pass (the deterministic cross-domain
//     constraint pass and the three LLM passes) into one Result: any blocking
//     finding in any pass ⇒ remediate, otherwise proceed; every finding and
//     every pass is kept, in input order.
//   - NextAction turns a Result and the remediation cycle count into what
//     the pipeline does next: proceed, remediate with feedback text for code
//     generation, or escalate once the cycles are exhausted.
//
// The package is pure: no I/O, no globals; every function is safe for
// concurrent use.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package review
