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

// TestOnlyProvidersLinkTheLLMSDKs keeps anthropic-sdk-go and openai-go in
// internal/llm/providers, and that package imported by main alone
// (cmd/cogworks sets factory.Factory.NewProvider): a test binary that
// links the SDKs pays about 1.5 s more link CPU, the command packages'
// about 1.7 s each, and before the providers had a package of their own
// every binary that imported llm for its gateway or types did
// (benchmarks/README.md, "Test suite").
func TestOnlyProvidersLinkTheLLMSDKs(t *testing.T) {
	t.Parallel()
	const providers = "github.com/cogworks/cogworks/internal/llm/providers"
	sdk := func(path string) bool {
		return strings.HasPrefix(path, "github.com/anthropics/anthropic-sdk-go") || strings.HasPrefix(path, "github.com/openai/openai-go")
	}
	out, err := exec.CommandContext(t.Context(), "go", "list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/cogworks/cogworks/cmd/cogworks").Output()
	require.NoError(t, err, "go list -deps")
	var sdkImporters, providersImporters []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if !strings.HasPrefix(fields[0], "github.com/cogworks/cogworks/") {
			continue
		}
		for _, imp := range fields[1:] {
			switch {
			case sdk(imp):
				sdkImporters = append(sdkImporters, fields[0])
			case imp == providers:
				providersImporters = append(providersImporters, fields[0])
			}
		}
	}
	require.NotEmpty(t, sdkImporters, "go list answered with the SDKs' importers")
	for _, p := range sdkImporters {
		assert.Equal(t, providers, p, "only the providers package imports the LLM SDKs")
	}
	assert.ElementsMatch(t, []string{"github.com/cogworks/cogworks/cmd/cogworks"},
		providersImporters, "only main imports the providers")
}
