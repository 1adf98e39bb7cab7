package codegen_test

import (
	"os"
	"testing"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox init of the commands
// its tests run sandboxed (see sandbox.Main).
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
