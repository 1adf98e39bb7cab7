//go:build e2e

// Every test of this package runs the real pipeline (e2e); untagged, this
// file alone made the default suite link a test binary with no test in it.
package democmd_test

import (
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
)

func TestMain(m *testing.M) {
	cmdtest.Main(m)
}
