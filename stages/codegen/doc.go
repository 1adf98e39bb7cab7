// Package codegen is the code generation stage (docs/spec.md §5 item 5,
// docs/code-generation.md): for the current sub-work-item it assembles the
// context (never the held-out scenarios: Deps has no field for them),
// applies the model's edits, has the domain service validate and test
// them, judges failures against the base tree's baseline and commits the
// SWI's branch. Its Executor sees GitHub only through GitHub.
//
// Stability: part of CogWorks's Go API with package stages; until v1.0.0
// of the module its exported names may change in any minor release.
package codegen
