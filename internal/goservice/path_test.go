package goservice_test

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
)

var compiledDir = regexp.MustCompile(`compiled-in dir: (\S+)`)

// TestSimulatePathSensitiveTestsPass: tests that read their own source
// through runtime.Caller (testify's mock) pass, which -trimpath broke,
// and every request compiles at the same directory, which is what keeps
// build-cache hits across per-request workspaces.
func TestSimulatePathSensitiveTestsPass(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	repo := t.TempDir()
	require.NoError(t, os.CopyFS(repo, os.DirFS("testdata/pathmod")))
	c := newClient(t, goservicetest.Start(t, goservice.Options{}))
	var dirs []string
	for i, extra := range []string{"", "\n// Second request.\n"} {
		req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
			{Path: "extra.go", Content: "package pathmod\n" + extra},
		}}
		res, err := c.Simulate(context.Background(), req, domain.SimulateParams{})
		require.NoError(t, err)
		require.True(t, res.Passed, "request %d: %s", i, res.Output)
		m := compiledDir.FindStringSubmatch(res.Output)
		require.NotNil(t, m, res.Output)
		dirs = append(dirs, m[1])
	}
	assert.Equal(t, dirs[0], dirs[1], "the workspace path is the same for every request")
	assert.NotContains(t, dirs[0], "cogworks-go-", "not the per-request temporary directory")
}
