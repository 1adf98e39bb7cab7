package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
)

func newSim(t *testing.T, files map[string]string) (*githubsim.Server, *github.Client) {
	t.Helper()
	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.AddToken("tok", "cogworks[bot]")
	sim.CreateRepo("acme", "widgets", "main")
	if files != nil {
		sim.SeedFiles("acme/widgets", "main", files)
	}
	c, err := github.New(context.Background(), github.Options{BaseURL: url + "/api/v3/", Token: "tok", CacheSize: -1})
	require.NoError(t, err)
	return sim, c
}

func TestHeadMaterialisesTheDefaultBranchAndReadsItsConfig(t *testing.T) {
	sim, gh := newSim(t, map[string]string{
		".cogworks/config.toml": "[gates]\narchitecture = \"auto-proceed\"\n",
		"pkg/a.go":              "package pkg\n",
		"README.md":             "hello\n",
	})
	repo := github.Repo{Owner: "acme", Name: "widgets"}
	c := &Cache{Root: t.TempDir()}
	ctx := context.Background()

	co, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	sha, _ := sim.BranchSHA("acme/widgets", "main")
	assert.Equal(t, sha, co.SHA)
	assert.Equal(t, "main", co.Branch)
	assert.Equal(t, config.AutoProceed, co.Config.GateMode("architecture"))
	got, err := os.ReadFile(filepath.Join(co.Dir, "pkg", "a.go"))
	require.NoError(t, err)
	assert.Equal(t, "package pkg\n", string(got))
	fromDisk, err := config.Load(co.Dir)
	require.NoError(t, err)
	assert.Equal(t, co.Config, fromDisk, "the tree and the contents API agree")

	before := sim.RequestCount()
	again, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	assert.Equal(t, co.Dir, again.Dir)
	assert.LessOrEqual(t, sim.RequestCount()-before, 4, "a cached commit costs repo, branch and config reads only")

	// A new commit gets its own tree; the old one stays until pruned.
	sim.SeedFiles("acme/widgets", "main", map[string]string{"pkg/b.go": "package pkg // b\n"})
	next, err := c.Head(ctx, gh, repo)
	require.NoError(t, err)
	assert.NotEqual(t, co.Dir, next.Dir)
	assert.FileExists(t, filepath.Join(next.Dir, "pkg", "b.go"))
}

func TestMissingConfigIsTheDefaultAndPruneKeepsTheNewest(t *testing.T) {
	sim, gh := newSim(t, map[string]string{"a.txt": "1"})
	repo := github.Repo{Owner: "acme", Name: "widgets"}
	c := &Cache{Root: t.TempDir(), Keep: 2}
	ctx := context.Background()
	var dirs []string
	for i := range 3 {
		co, err := c.Head(ctx, gh, repo)
		require.NoError(t, err)
		assert.Equal(t, config.Default(), co.Config)
		dirs = append(dirs, co.Dir)
		sim.SeedFiles("acme/widgets", "main", map[string]string{"a.txt": string(rune('2' + i))})
	}
	assert.NoDirExists(t, dirs[0], "only the newest two trees are kept")
	assert.DirExists(t, dirs[1])
	assert.DirExists(t, dirs[2])
}

func TestBadConfigAndMissingRepoAreErrors(t *testing.T) {
	_, gh := newSim(t, map[string]string{".cogworks/config.toml": "[gates]\nnope = \"x\"\n"})
	c := &Cache{Root: t.TempDir()}
	_, err := c.Head(context.Background(), gh, github.Repo{Owner: "acme", Name: "widgets"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "acme/widgets:.cogworks/config.toml")

	_, err = c.Head(context.Background(), gh, github.Repo{Owner: "acme", Name: "nothing"})
	require.Error(t, err)
	assert.ErrorIs(t, err, github.ErrNotFound)
}
