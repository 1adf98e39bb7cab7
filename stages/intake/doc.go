// Package intake is the intake stage (docs/spec.md §5 item 1): it
// classifies the issue through the LLM gateway, validates the answer with
// classify (schema, safety override, scope threshold) and records the
// classification comment through idem. Its Executor sees GitHub only
// through GitHub, the comment port.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package intake
