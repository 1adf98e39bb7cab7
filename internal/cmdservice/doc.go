// Package cmdservice is the built-in command domain service: it serves the
// Extension API (docs/domain-services.md) for a toolchain declared by
// configuration rather than written in Go — a [[domains]] table of
// .cogworks/config.toml (internal/config.Domain), usually a preset
// (python, typescript, javascript, rust, java) with overrides.
//
// Per request it copies the repository (without .git and, outside the
// scenario-validation stage, without the held-out scenarios) into a fresh
// workspace, overlays the artifacts, and runs the domain's commands there
// through /bin/sh inside internal/sandbox: the workspace bound writable at
// one fixed path, the toolchain read-only, no network. The set-up command
// runs first, in its own sandbox, with the network only when the domain
// asks for it and the operator allows it; no secret reaches any command
// (the environment is sandbox.MinimalEnv plus the domain's own variables).
//
// Diagnostics are read from SARIF 2.1.0 or compiler-style
// "file:line:col: message" lines; test results from a JUnit XML report
// the test command writes into a directory that exists only for that run
// (so nothing the repository ships is read as a report), or from
// `cargo test` output. The verdict follows "Test verdicts": no test ran is
// a failure, a failed test wins, and an exit status alone never passes.
//
// The handler is safe for concurrent use; requests share nothing.
package cmdservice
