package goservice

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/testkit"
)

// TestTestDeclarationsReadTheRequestsTree: the Go service declares the
// tests of the _test.go files among simulate's paths, from the artifacts
// and the repository the request laid out; a linked (untouched) file is
// read too, and a deleted or absent one declares nothing.
func TestTestDeclarationsReadTheRequestsTree(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":             "module example.com/m\n",
		"calc/old_test.go":   "package calc\n\nimport \"testing\"\n\nfunc TestOld(t *testing.T) {}\n",
		"calc/gone_test.go":  "package calc\n\nimport \"testing\"\n\nfunc TestGone(t *testing.T) {}\n",
		"other/x_test.go":    "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
		"calc/calc.go":       "package calc\n",
		"calc/testdata/a.go": "package a\n",
	})
	ws, err := prepareWorkspace(domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
		{Path: "calc/add_test.go", Content: "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Log(1)\n}\n"},
		{Path: "calc/gone_test.go", Delete: true},
	}})
	require.NoError(t, err)
	defer ws.Remove()
	got := testDeclarations(ws, []string{"calc/add_test.go", "calc/gone_test.go", "other/x_test.go", "calc/calc.go", "calc/none_test.go"})
	assert.Equal(t, []domain.TestDeclaration{
		{File: "calc/add_test.go", Name: "TestAdd", Package: "calc", Line: 5, EndLine: 7},
		{File: "other/x_test.go", Name: "TestOther", Package: "other", Line: 5, EndLine: 5},
	}, got)
}
