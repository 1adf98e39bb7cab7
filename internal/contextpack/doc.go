// Package contextpack assembles the context package of an LLM call within
// the model's window (docs/spec.md §8).
//
// Assemble is pure and deterministic: when the items exceed the window it
// drops the lowest-priority items first — (5) other files, farthest
// import-graph distance first, then (4) coding standards, (3) architectural
// constraints, (2) outputs of depended-upon sub-work-items — and never
// drops (1) the current sub-work-item's interface definitions
// (ASSERT-CODE-006) and the current content of the files it edits (an
// edit must quote them exactly); if those alone exceed the window it returns an
// *OverflowError. Tokens are counted by the caller's function (for example
// llm.EstimateTokens) over each item's path and content.
//
// Scenario files are held out of every code-generation context
// (ASSERT-SCEN-002): ExcludeScenarios and ExcludeScenarioItems remove every
// path inside the scenario directory, whatever its spelling.
//
// WithRepack is the one answer to a provider's refusal of a prompt over
// the model's window (a Shrinker, *llm.ContextOverflowError): repack once
// to the smaller budget the refusal's figures give, send again, then
// escalate with both refusals' figures.
//
// Repository is the Code Repository port files are read through; LocalRepo
// implements it over a working copy, and the GitHub-backed implementation
// lives with the GitHub adapter.
package contextpack
