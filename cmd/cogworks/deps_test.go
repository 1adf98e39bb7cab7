package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinariesDoNotLinkTestPackages keeps test helpers out of production
// code: a package that imports testing or net/http/httptest (or a test
// fixture of this module) must be imported from _test files only.
func TestBinariesDoNotLinkTestPackages(t *testing.T) {
	t.Parallel()
	forbidden := []string{
		"testing",
		"net/http/httptest",
		"github.com/cogworks/cogworks/internal/testenv",
		"github.com/cogworks/cogworks/domain/goservice/goservicetest",
	}
	for _, bin := range []string{"github.com/cogworks/cogworks/cmd/cogworks", "github.com/cogworks/cogworks/cmd/cogworks-domain-go"} {
		t.Run(bin, func(t *testing.T) {
			t.Parallel()
			out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", bin).Output()
			require.NoError(t, err, "go list -deps %s", bin)
			deps := strings.Fields(string(out))
			require.Contains(t, deps, bin, "go list answered for the binary")
			for _, pkg := range forbidden {
				assert.NotContains(t, deps, pkg, "%s links %s", bin, pkg)
			}
		})
	}
}
