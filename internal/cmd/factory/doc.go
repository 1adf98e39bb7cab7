// Package factory is what every command shares (cli/cli's cmdutil): the
// Factory that builds dependencies lazily, the production wiring of stage
// executors and domain services, the bot identity and state key, the
// budget, help text and exit codes. Each command lives in its own package
// under internal/cmd; its constructor fills an options struct and calls a
// run function that tests call directly; output goes to injected streams.
// Only cmd/cogworks/main.go maps errors to exit codes (ExitCode).
package factory
