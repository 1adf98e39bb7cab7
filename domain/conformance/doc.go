// Package conformance is the Extension API conformance suite: Run checks
// that a domain service answers the handshake with a well-formed
// description declaring the methods the pipeline cannot do without (Needed), that
// every method it declares returns schema-valid results for a valid
// request carrying files of the service's own artifact types (OwnTypes
// adds a sample per declared type the fixtures lack), that unknown methods answer unsupported_method, that
// malformed envelopes answer invalid_request and incompatible API versions
// api_version_mismatch, and that a client-side timeout yields the timeout
// code while leaving the service healthy.
//
// The package's own test runs the suite against the reference Go service
// on a real unix socket, or against an external service named by
// COGWORKS_CONFORMANCE_SOCKET (a unix socket path) or
// COGWORKS_CONFORMANCE_URL (http://host:port), with the fixture repository
// overridable by COGWORKS_CONFORMANCE_REPO.
package conformance
