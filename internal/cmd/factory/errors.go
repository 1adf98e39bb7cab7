package factory

import "errors"

// UsageError is bad usage or bad configuration: exit code 2. Its message
// ends with a pointer to --help.
type UsageError struct{ Err error }

// Error implements error.
func (e *UsageError) Error() string { return e.Err.Error() + " (see --help)" }

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode maps a command error to the process exit code (docs/spec.md §3): 0 for
// success, 2 for bad usage or config, 1 for escalations, failed checks and
// infrastructure failures.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}
