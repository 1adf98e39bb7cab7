package cmdservice_test

import (
	"os"
	"testing"

	"github.com/cogworks/cogworks/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox init of the
// commands the tests run.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
