package factory_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
)

// TestWiringChoosesTheServiceByArtifactType registers an out-of-process
// service declaring only .py in the repository's .cogworks/services.toml,
// as docs/domain-services.md tells a user to. Before issue 27 the wiring
// resolved the primary service for ".go" (set.Resolve([]string{".go"})),
// so this service was never chosen and the stages had no domain service.
func TestWiringChoosesTheServiceByArtifactType(t *testing.T) {
	t.Parallel()
	py := &domaintest.Fake{}
	srv := httptest.NewServer(domaintest.Handler(py, domain.HandshakeResult{
		Name: "python", ServiceVersion: "0.1.0", APIVersion: domain.APIVersion, Domain: "software",
		Capabilities: []string{domain.MethodValidate, domain.MethodSimulate}, ArtifactTypes: []string{".py", "pyproject.toml"},
		InterfaceTypes: []string{}, InterfaceVersions: map[string][]string{},
	}))
	t.Cleanup(srv.Close)
	ws := t.TempDir()
	testkit.WriteTree(t, ws, map[string]string{
		"pyproject.toml":          "[project]\nname = \"pkg\"\n",
		"src/pkg/__init__.py":     "",
		".cogworks/services.toml": "[[services]]\nname = \"python\"\ntransport = \"http\"\nendpoint = \"" + srv.URL + "\"\n",
	})
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	ctx := context.Background()
	d, _, err := f.StageDeps(ctx, env.Client, ws, config.Default(), nil)
	require.NoError(t, err)
	require.NotNil(t, d.Domain, "the .py service serves the stages")

	req := domain.Request{Repository: domain.Repository{Path: ws}, Artifacts: []domain.Artifact{
		{Path: "src/pkg/calc.py", Content: "def add(a, b):\n    return a + b\n"},
		{Path: "tests/test_calc.py", Content: "def test_add():\n    pass\n"},
	}}
	_, err = d.Domain.Validate(ctx, req)
	require.NoError(t, err)
	_, err = d.Domain.Simulate(ctx, req, domain.SimulateParams{Paths: []string{"src/pkg/calc.py", "tests/test_calc.py"}})
	require.NoError(t, err)
	sims := py.Calls(domain.MethodSimulate)
	require.Len(t, sims, 1)
	assert.Equal(t, []string{"src/pkg/calc.py", "tests/test_calc.py"}, sims[0].Params.Paths, "the paths reach the service over the wire")

	_, err = d.Domain.Validate(ctx, domain.Request{Repository: domain.Repository{Path: ws}, Artifacts: []domain.Artifact{{Path: "main.go", Content: "package main\n"}}})
	var nse *domain.NoServiceError
	require.ErrorAs(t, err, &nse, "no registered service covers .go")
	assert.Contains(t, err.Error(), filepath.ToSlash(domain.DefaultServicesFile))
}
