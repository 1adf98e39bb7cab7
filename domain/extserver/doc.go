// Package extserver is the server side of the Extension API (docs/spec.md
// §10) shared by the built-in domain services (internal/goservice,
// internal/cmdservice): the routes, the request envelope's checks, the
// error envelope with its error-code → HTTP-status table, and a graceful
// Serve. A service supplies only its method table and the capabilities it
// declares; everything on the wire between them is this package's, so the
// services cannot drift apart (domain/conformance checks both).
//
// Contracts:
//   - GET /extension/v1/health answers {"status":"ok"}.
//   - POST /extension/v1/<method> routes only the declared capabilities;
//     any other method is unsupported_method (404) naming them.
//   - The envelope needs request_id, a method matching the route and,
//     except for the handshake (which answers any version so the client
//     can report both), a compatible api_version.
//   - A method's error is an *Error to choose its code; any other error is
//     internal_error.
//
// A Handler is safe for concurrent use when its methods are.
package extserver
