package goservice_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
)

func TestRepoMapListsRootPackageSymbolsAndImports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS("testdata/mapmod")))
	c := newClient(t, goservicetest.Start(t, goservice.Options{}))
	hs, err := c.Handshake(context.Background())
	require.NoError(t, err)
	assert.True(t, hs.Supports(domain.MethodRepoMap), "repo_map is declared")

	res, err := c.RepoMap(context.Background(), domain.Request{
		Repository: domain.Repository{Path: dir},
		Artifacts: []domain.Artifact{
			{Path: "inner/extra.go", Content: "package inner\n\nfunc Extra() int { return 1 }\n"},
			{Path: "inner/inner.go", Delete: true},
		},
	})
	require.NoError(t, err)
	assert.Equal(t, "example.com/mapmod", res.Module)
	require.Len(t, res.Packages, 2, "root and inner; testdata is skipped")

	root := res.Packages[0]
	assert.Equal(t, ".", root.Dir, "the root package is a package like any other")
	assert.Equal(t, "example.com/mapmod", root.ImportPath)
	assert.Equal(t, "mapmod", root.Name)
	assert.Equal(t, []string{"example.com/mapmod/inner", "fmt", "testing"}, root.Imports)
	require.Len(t, root.Files, 2)
	assert.Equal(t, "lib.go", root.Files[0].Path)
	assert.False(t, root.Files[0].Test)
	assert.Equal(t, 42, root.Files[0].Lines)
	assert.True(t, root.Files[1].Test, "lib_test.go is a test file")

	sigs := map[string]string{}
	for _, s := range root.Files[0].Symbols {
		sigs[s.Kind+" "+s.Name] = s.Signature
	}
	assert.Equal(t, map[string]string{
		"const Limit":        "const Limit = 3",
		"var defaultSep":     `var defaultSep = ", "`,
		"type Pair":          "type Pair[K comparable, V any] struct{…}",
		"type Store":         "type Store interface{…}",
		"func Join":          "func Join(ps []Pair[string, int]) string",
		"method Pair.String": "func (p Pair[K, V]) String() string",
		"func helper":        "func helper(a, b int, c string) error",
	}, sigs, "exported and unexported declarations, one line each")

	inner := res.Packages[1]
	assert.Equal(t, "inner", inner.Dir)
	require.Len(t, inner.Files, 1, "the deleted artifact is gone, the new one is there")
	assert.Equal(t, "inner/extra.go", inner.Files[0].Path)
}
