package linkguard_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinariesDoNotLinkTestPackages keeps test helpers out of production
// code: no package linked into a binary may import testing or
// net/http/httptest (nor this module's test fixtures), except the listed
// third-party packages, which CogWorks cannot change. It runs in plain
// `go test ./...`: it asks `go list`, so it links nothing of cogworks.
func TestBinariesDoNotLinkTestPackages(t *testing.T) {
	t.Parallel()
	forbidden := map[string]bool{
		"testing":           true,
		"net/http/httptest": true,
		"github.com/cogworks/cogworks/internal/testenv":                 true,
		"github.com/cogworks/cogworks/internal/goservice/goservicetest": true,
		"github.com/cogworks/cogworks/internal/cmd/cmdtest":             true,
	}
	// go-abnf (pulled in by prometheus/common/expfmt for the metrics
	// endpoint) imports testing in a non-test file.
	knownThirdParty := map[string]bool{"github.com/pandatix/go-abnf imports testing": true}
	for _, bin := range []string{"github.com/cogworks/cogworks/cmd/cogworks", "github.com/cogworks/cogworks/cmd/cogworks-domain-go"} {
		t.Run(bin, func(t *testing.T) {
			t.Parallel()
			out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", bin).Output()
			require.NoError(t, err, "go list -deps %s", bin)
			var offenders []string
			seen := false
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				fields := strings.Fields(line)
				seen = seen || fields[0] == bin
				for _, imp := range fields[1:] {
					if !forbidden[imp] {
						continue
					}
					if edge := fields[0] + " imports " + imp; !knownThirdParty[edge] {
						offenders = append(offenders, edge)
					}
				}
			}
			require.True(t, seen, "go list answered for the binary")
			assert.Empty(t, offenders, "%s links test-only packages", bin)
		})
	}
}
