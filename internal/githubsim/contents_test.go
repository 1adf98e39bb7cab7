package githubsim

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestContentsReadWrite(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	seeded := f.srv.SeedFiles(full, "main", map[string]string{"README.md": "hello\n", "docs/a.md": "A", "docs/b.md": "B"})

	file, dir, _, err := f.client.Repositories.GetContents(c, owner, name, "README.md", nil)
	require.NoError(t, err)
	require.Nil(t, dir)
	text, err := file.GetContent()
	require.NoError(t, err)
	assert.Equal(t, "hello\n", text)
	assert.Equal(t, helloBlob, file.GetSHA(), "contents sha is the blob sha")

	_, dir, _, err = f.client.Repositories.GetContents(c, owner, name, "docs", &github.RepositoryContentGetOptions{Ref: seeded})
	require.NoError(t, err)
	require.Len(t, dir, 2)
	assert.Equal(t, "docs/a.md", dir[0].GetPath())
	assert.Equal(t, "file", dir[0].GetType())

	_, _, _, err = f.client.Repositories.GetContents(c, owner, name, "nope.md", nil)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))

	// Create on a new branch, then update with and without the right sha.
	f.srv.SeedFiles(full, "cogworks/3/code", map[string]string{})
	created, resp, err := f.client.Repositories.CreateFile(c, owner, name, "pkg/x.go", &github.RepositoryContentFileOptions{
		Message: github.String("add x"), Content: []byte("package pkg\n"), Branch: github.String("cogworks/3/code"),
	})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	head, _ := f.srv.BranchSHA(full, "cogworks/3/code")
	assert.Equal(t, head, created.Commit.GetSHA()) //nolint:staticcheck // QF1008: "Commit" says which SHA is meant; created.GetSHA() reads as the file's blob SHA.
	commit, _, err := f.client.Git.GetCommit(c, owner, name, head)
	require.NoError(t, err)
	tree, _, err := f.client.Git.GetTree(c, owner, name, commit.GetTree().GetSHA(), true)
	require.NoError(t, err)
	var treeSHA string
	for _, e := range tree.Entries {
		if e.GetPath() == "pkg/x.go" {
			treeSHA = e.GetSHA()
		}
	}
	assert.Equal(t, created.Content.GetSHA(), treeSHA, "contents, tree and commit agree")

	update := func(sha string) (*github.Response, error) {
		_, resp, err := f.client.Repositories.UpdateFile(c, owner, name, "pkg/x.go", &github.RepositoryContentFileOptions{
			Message: github.String("edit x"), Content: []byte("package pkg // v2\n"), Branch: github.String("cogworks/3/code"), SHA: github.String(sha),
		})
		return resp, err
	}
	_, err = update(helloBlob)
	assert.Equal(t, http.StatusConflict, statusOf(t, err), "stale sha")
	_, err = update("")
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "missing sha")
	resp, err = update(created.Content.GetSHA())
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "package pkg // v2\n", f.srv.BranchFiles(full, "cogworks/3/code")["pkg/x.go"])
	assert.Equal(t, "hello\n", f.srv.BranchFiles(full, "cogworks/3/code")["README.md"], "branch was created from main")
	assert.NotContains(t, f.srv.BranchFiles(full, "main"), "pkg/x.go")

	_, _, err = f.client.Repositories.CreateFile(c, owner, name, "y.go", &github.RepositoryContentFileOptions{
		Message: github.String("add y"), Content: []byte("y"), Branch: github.String("no-such-branch"),
	})
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))

	file, _, _, err = f.client.Repositories.GetContents(c, owner, name, "pkg/x.go", &github.RepositoryContentGetOptions{Ref: "cogworks/3/code"})
	require.NoError(t, err)
	_, _, err = f.client.Repositories.DeleteFile(c, owner, name, "pkg/x.go", &github.RepositoryContentFileOptions{
		Message: github.String("rm x"), SHA: file.SHA, Branch: github.String("cogworks/3/code"),
	})
	require.NoError(t, err)
	assert.NotContains(t, f.srv.BranchFiles(full, "cogworks/3/code"), "pkg/x.go")
}
