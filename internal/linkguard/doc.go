// Package linkguard holds no code: its test checks, in the default suite,
// that no CogWorks binary links testing, net/http/httptest or the module's
// test fixtures. It lives apart from cmd/cogworks because that package's
// tests carry the e2e tag (its test binary links the whole of cogworks to
// serve as the sandbox init).
package linkguard
