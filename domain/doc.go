// Package domain implements the client side of CogWorks's Extension API: the
// protocol spoken with domain services (docs/spec.md §10).
//
// A domain service is a separate process that knows one engineering domain
// (for example Go software) and answers JSON requests over HTTP/1.1 carried on
// a unix domain socket or TCP: POST /extension/v1/<method> with a Request
// envelope as body, answered by a Response envelope. GET /extension/v1/health
// answers liveness.
//
// Contracts:
//   - Every response is validated against the JSON Schemas generated from the
//     Go types in this package (checked in under schemas/extension-api/)
//     before any field is used; a response that fails validation is a
//     *ProtocolError, never a panic.
//   - Service-reported failures are *Error values carrying a Code and a
//     recoverability; Transient tells callers whether to try again.
//   - A service that cannot be reached is an *UnavailableError naming the
//     service and its endpoint.
//   - The handshake rejects a service whose MAJOR API version differs from
//     the client's, with a message naming both versions.
//   - A method the service did not declare in its handshake capabilities is
//     refused with unsupported_method before any request is sent.
//
// A Client is safe for concurrent use. Set classifies a group of registered
// services into the primary one (its artifact types cover the artifacts being
// generated) and secondary ones, halting when the primary is unavailable and
// continuing with warnings when a secondary one is.
package domain

//go:generate env UPDATE=1 go test -run TestSchemasUpToDate .
