package conformance_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/conformance"
	"github.com/cogworks/cogworks/domain/domaintest"
	"github.com/cogworks/cogworks/internal/e2e"
)

// TestConformanceExternalPythonService runs the suite against a service
// written in Python, outside CogWorks, from docs/domain-services.md alone
// (domaintest.PythonService): the contract is enough to write one that
// conforms. It runs the fixture's tests with python3 outside any sandbox,
// so it is an end-to-end test.
func TestConformanceExternalPythonService(t *testing.T) {
	t.Parallel()
	e2e.RequireToolchain(t)
	sock := domaintest.StartPython(t)
	repo := t.TempDir()
	require.NoError(t, os.CopyFS(repo, os.DirFS("testdata/python")))
	client, err := domain.NewClient(domain.ServiceConfig{Name: "pyservice", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	t.Cleanup(client.Close)
	conformance.Run(t, client, conformance.Fixtures{
		Request: domain.Request{
			Repository: domain.Repository{Path: repo},
			Artifacts:  []domain.Artifact{{Path: "extra.py", Content: "def triple(v):\n    return 3 * v\n"}},
		},
		Simulate: domain.SimulateParams{Timeout: "60s"},
	})
}
