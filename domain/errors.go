package domain

import (
	"fmt"
	"strings"
)

// Error is a failure reported by (or, for unsupported_method,
// api_version_mismatch and timeout, established on behalf of) a domain
// service.
type Error struct {
	Code        ErrorCode
	Message     string
	Recoverable bool
	Service     string
	Method      string
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("domain service %q %s: %s: %s", e.Service, e.Method, e.Code, e.Message)
}

// Transient reports whether repeating the call may succeed. Codes that
// describe the request or the service's contract never are, whatever the
// service claimed.
func (e *Error) Transient() bool {
	switch e.Code {
	case CodeUnsupportedMethod, CodeAPIVersionMismatch, CodeInvalidRequest:
		return false
	}
	return e.Recoverable
}

// UnavailableError reports that a service could not be reached at all
// (connection refused, missing or dead socket).
type UnavailableError struct {
	Service  string
	Endpoint string
	Err      error
}

// Error implements error.
func (e *UnavailableError) Error() string {
	return fmt.Sprintf("domain service %q unavailable at %s: %v", e.Service, e.Endpoint, e.Err)
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *UnavailableError) Unwrap() error { return e.Err }

// ProtocolError reports a response that is not a valid Extension API answer:
// undecodable JSON, a schema violation or a mismatched request id.
type ProtocolError struct {
	Service string
	Method  string
	Err     error
}

// Error implements error.
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("domain service %q %s: invalid response: %v", e.Service, e.Method, e.Err)
}

// Unwrap returns the wrapped error, for errors.Is and errors.As.
func (e *ProtocolError) Unwrap() error { return e.Err }

// HaltError reports that the pipeline cannot continue because the primary
// domain service for the artifacts is unavailable (ASSERT-EXT-001).
type HaltError struct {
	// Services names the unavailable services that could be the primary.
	Services []string
	// Artifacts are the artifact paths that no available service covers.
	Artifacts []string
	// Reasons holds one line per unavailable service.
	Reasons []string
}

// Configuration says what to fix: start the service or correct its
// registration.
func (e *HaltError) Configuration() string {
	return "Start the unavailable domain service (" + strings.Join(e.Services, ", ") + ") or correct its registration in `" +
		DefaultServicesFile + "` (see " + ServicesDoc + "; `cogworks health` checks it). Then apply `cogworks:retry`."
}

// Error implements error.
func (e *HaltError) Error() string {
	var b strings.Builder
	b.WriteString("halt: no available domain service covers the artifacts ")
	b.WriteString(strings.Join(e.Artifacts, ", "))
	if len(e.Reasons) > 0 {
		b.WriteString("; unavailable: ")
		b.WriteString(strings.Join(e.Reasons, "; "))
	} else {
		b.WriteString("; no registered service declares these artifact types")
	}
	return b.String()
}
