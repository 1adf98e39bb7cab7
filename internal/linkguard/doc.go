// Package linkguard holds no code: its test checks, in the default suite,
// that no CogWorks binary links testing, net/http/httptest or the module's
// test fixtures, and that only internal/llm/providers imports the LLM
// providers' SDKs (which make a test binary's link about 1.5 s dearer).
// It lives apart from cmd/cogworks because that package's tests carry the
// e2e tag (its test binary links the whole of cogworks to serve as the
// sandbox init).
package linkguard
