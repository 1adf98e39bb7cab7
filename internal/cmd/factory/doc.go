// Package cli builds CogWorks's command tree (cobra). Each command has a
// constructor that fills an options struct and calls a run function that
// tests call directly; dependencies come lazily from a Factory; output goes
// to injected streams. Only cmd/cogworks/main.go maps errors to exit codes
// (ExitCode).
package factory
