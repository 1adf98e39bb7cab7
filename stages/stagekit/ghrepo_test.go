package stagekit

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
)

func TestGitHubRepoListsAndReadsBranch(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	env.Sim.SeedFiles(testenv.Repo.String(), "main", map[string]string{"counter/counter.go": "package counter\n", "docs/adr/1.md": "# one\n"})
	r := GitHubRepo{GitHub: env.Client, Repo: testenv.Repo, Ref: "main"}
	ctx := context.Background()
	files, err := r.ListFiles(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"README.md", "counter/counter.go", "docs/adr/1.md", "go.mod"}, files)
	b, err := r.ReadFile(ctx, "counter/counter.go")
	require.NoError(t, err)
	assert.Equal(t, "package counter\n", string(b))
	_, err = r.ReadFile(ctx, "nope.go")
	assert.True(t, errors.Is(err, github.ErrNotFound), "%v", err)
	_, err = r.ReadFile(ctx, "/etc/passwd")
	assert.ErrorContains(t, err, "relative")
	_, err = GitHubRepo{GitHub: env.Client, Repo: testenv.Repo, Ref: "missing"}.ListFiles(ctx)
	assert.ErrorContains(t, err, "missing")
}
