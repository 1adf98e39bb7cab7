// Package e2e gates the end-to-end tests that `go test ./...` skips and
// `.ci/run` (which sets the e2e build tag) always runs. It has no
// dependencies, so the internal tests of any package can use it.
package e2e

import "testing"

// Enabled reports whether the test binary was built with the e2e tag.
const Enabled = enabled

// RequireToolchain skips t unless the test binary was built with the e2e
// tag and -short is not set. A test calls it when it runs the real Go
// toolchain on generated code in the sandbox: each such request costs
// 0.1–1.5 s of CPU, and together they made the default `go test ./...`
// several times slower than the rest of the suite (issue 18 asks for a
// fast default suite; CI still runs every one of them).
func RequireToolchain(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the real Go toolchain (skipped under -short)")
	}
	if !Enabled {
		t.Skip("runs the real Go toolchain: go test -tags e2e")
	}
}
