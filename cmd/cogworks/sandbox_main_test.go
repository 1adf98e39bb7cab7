//go:build e2e

package main

import (
	"os"
	"testing"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox init of the commands
// its tests run sandboxed (see sandbox.Main). Every test of this package
// carries the e2e tag: without it `go test ./...` builds no test binary
// here, which would link the whole of cogworks for nothing.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
