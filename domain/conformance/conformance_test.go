package conformance_test

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/conformance"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/sandbox"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	cfg := domain.ServiceConfig{Name: "under-test", Transport: domain.TransportUnix}
	switch {
	case os.Getenv("COGWORKS_CONFORMANCE_SOCKET") != "":
		cfg.Endpoint = os.Getenv("COGWORKS_CONFORMANCE_SOCKET")
	case os.Getenv("COGWORKS_CONFORMANCE_URL") != "":
		cfg.Transport, cfg.Endpoint = domain.TransportHTTP, os.Getenv("COGWORKS_CONFORMANCE_URL")
	default:
		// The reference service runs the real Go toolchain: an
		// end-to-end test. A service named by a variable is always checked.
		e2e.RequireToolchain(t)
		cfg.Name = "reference"
		cfg.Endpoint = goservicetest.Start(t, goservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 2 * time.Minute}})
	}
	repo := os.Getenv("COGWORKS_CONFORMANCE_REPO")
	if repo == "" {
		repo = t.TempDir()
		require.NoError(t, os.CopyFS(repo, os.DirFS("testdata/module")))
	}
	client, err := domain.NewClient(cfg)
	require.NoError(t, err)
	t.Cleanup(client.Close)
	conformance.Run(t, client, conformance.Fixtures{
		Request: domain.Request{
			Repository: domain.Repository{Path: repo},
			Artifacts:  []domain.Artifact{{Path: "extra.go", Content: "package conformance\n\n// Triple returns thrice v.\nfunc Triple(v int) int { return 3 * v }\n"}},
		},
		Simulate: domain.SimulateParams{Timeout: "60s"},
	})
}

// TestConformanceCommandService checks the built-in command service with
// the python preset over a tiny pytest project: it runs pytest in the
// sandbox, so it is an end-to-end test that also needs pytest.
func TestConformanceCommandService(t *testing.T) {
	t.Parallel()
	e2e.RequireToolchain(t)
	cmdservicetest.RequirePytest(t)
	d, err := cmdservice.Resolve(config.Domain{Name: "python", Preset: "python"})
	require.NoError(t, err)
	sock := cmdservicetest.Start(t, d, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{TestTimeout: 2 * time.Minute}})
	repo := t.TempDir()
	require.NoError(t, os.CopyFS(repo, os.DirFS("testdata/python")))
	client, err := domain.NewClient(domain.ServiceConfig{Name: "cmd-python", Transport: domain.TransportUnix, Endpoint: sock})
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
