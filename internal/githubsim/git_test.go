package githubsim

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Expected SHAs were produced by git itself (hash-object, mktree,
// commit-tree) for the same content, so they prove real git encodings.
const (
	helloBlob   = "ce013625030ba8dba906f756967f9e9ca394464a"
	emptyTree   = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
	sampleTree  = "16a085cb16a7054df75d9d28fa084136990448cc"
	sampleSub   = "dfcade591b1317d21b9a6e3d6dfb43d75eb00910"
	sampleCommt = "281611d48d10c15cdabb07ce2f8974662baf3f8d"
)

func TestGitObjectsHaveRealDeterministicSHAs(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	blob, _, err := f.client.Git.CreateBlob(c, owner, name, &github.Blob{Content: github.String("hello\n"), Encoding: github.String("utf-8")})
	require.NoError(t, err)
	assert.Equal(t, helloBlob, blob.GetSHA())

	entries := []*github.TreeEntry{
		{Path: github.String("hello.txt"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("hello\n")},
		{Path: github.String("d.txt"), Mode: github.String("100644"), Type: github.String("blob"), SHA: github.String(helloBlob)},
		{Path: github.String("d/x.go"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("package d\n")},
	}
	tree, _, err := f.client.Git.CreateTree(c, owner, name, "", entries)
	require.NoError(t, err)
	assert.Equal(t, sampleTree, tree.GetSHA())
	again, _, err := f.client.Git.CreateTree(c, owner, name, "", entries)
	require.NoError(t, err)
	assert.Equal(t, tree.GetSHA(), again.GetSHA(), "identical trees get identical SHAs")

	when := github.Timestamp{Time: time.Unix(1767323045, 0).UTC()}
	sig := &github.CommitAuthor{Name: github.String("alice"), Email: github.String("alice@example.com"), Date: &when}
	commit, _, err := f.client.Git.CreateCommit(c, owner, name, &github.Commit{
		Message: github.String("msg\n"), Tree: &github.Tree{SHA: tree.SHA}, Author: sig, Committer: sig,
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, sampleCommt, commit.GetSHA())

	got, _, err := f.client.Git.GetCommit(c, owner, name, commit.GetSHA())
	require.NoError(t, err)
	assert.Equal(t, sampleTree, got.GetTree().GetSHA())
	assert.Equal(t, "alice", got.GetAuthor().GetName())
	assert.Equal(t, when.Time, got.GetAuthor().GetDate().Time)

	rec, _, err := f.client.Git.GetTree(c, owner, name, sampleTree, true)
	require.NoError(t, err)
	var paths []string
	for _, e := range rec.Entries {
		paths = append(paths, e.GetPath()+" "+e.GetType()+" "+e.GetSHA()[:7])
	}
	assert.Equal(t, []string{"d.txt blob ce01362", "d tree dfcade5", "d/x.go blob 142fb42", "hello.txt blob ce01362"}, paths)
	flat, _, err := f.client.Git.GetTree(c, owner, name, sampleTree, false)
	require.NoError(t, err)
	assert.Len(t, flat.Entries, 3)

	// sha:null deletes; deleting the only file in d drops the directory.
	del, _, err := f.client.Git.CreateTree(c, owner, name, sampleTree, []*github.TreeEntry{{Path: github.String("d/x.go"), Mode: github.String("100644"), Type: github.String("blob")}})
	require.NoError(t, err)
	assert.Len(t, del.Entries, 2)
	back, _, err := f.client.Git.CreateTree(c, owner, name, del.GetSHA(), []*github.TreeEntry{{Path: github.String("d"), Mode: github.String("040000"), Type: github.String("tree"), SHA: github.String(sampleSub)}})
	require.NoError(t, err)
	assert.Equal(t, sampleTree, back.GetSHA(), "re-adding a subtree by sha restores the tree")

	b, _, err := f.client.Git.GetBlob(c, owner, name, helloBlob)
	require.NoError(t, err)
	assert.Equal(t, 6, b.GetSize())

	main, _, err := f.client.Git.GetRef(c, owner, name, "heads/main")
	require.NoError(t, err)
	initial, _, err := f.client.Git.GetCommit(c, owner, name, main.GetObject().GetSHA())
	require.NoError(t, err)
	assert.Equal(t, emptyTree, initial.GetTree().GetSHA(), "new repos start with an empty-tree commit")
}

func TestGitCommitValidation(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	_, _, err := f.client.Git.CreateCommit(c, owner, name, &github.Commit{Message: github.String("m"), Tree: &github.Tree{SHA: github.String(helloBlob)}}, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	_, _, err = f.client.Git.CreateCommit(c, owner, name, &github.Commit{
		Message: github.String("m"), Tree: &github.Tree{SHA: github.String(emptyTree)}, Parents: []*github.Commit{{SHA: github.String(emptyTree)}},
	}, nil)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	_, _, err = f.client.Git.GetCommit(c, owner, name, helloBlob)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
	_, _, err = f.client.Git.GetTree(c, owner, name, "0000000000000000000000000000000000000000", false)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
}

func TestGitRefsLifecycle(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	base, ok := f.srv.BranchSHA(full, "main")
	require.True(t, ok)
	const branch = "cogworks/12/spec"

	ref, _, err := f.client.Git.CreateRef(c, owner, name, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(base)}})
	require.NoError(t, err)
	assert.Equal(t, "refs/heads/"+branch, ref.GetRef())
	_, _, err = f.client.Git.CreateRef(c, owner, name, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(base)}})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "already exists")

	got, _, err := f.client.Git.GetRef(c, owner, name, "heads/"+branch)
	require.NoError(t, err)
	assert.Equal(t, base, got.GetObject().GetSHA())
	assert.Equal(t, "commit", got.GetObject().GetType())

	tree, _, err := f.client.Git.CreateTree(c, owner, name, emptyTree, []*github.TreeEntry{{Path: github.String("spec.md"), Mode: github.String("100644"), Type: github.String("blob"), Content: github.String("# Spec\n")}})
	require.NoError(t, err)
	child, _, err := f.client.Git.CreateCommit(c, owner, name, &github.Commit{Message: github.String("spec"), Tree: tree, Parents: []*github.Commit{{SHA: github.String(base)}}}, nil)
	require.NoError(t, err)
	orphan, _, err := f.client.Git.CreateCommit(c, owner, name, &github.Commit{Message: github.String("orphan"), Tree: tree}, nil)
	require.NoError(t, err)

	upd := func(sha string, force bool) error {
		_, _, err := f.client.Git.UpdateRef(c, owner, name, &github.Reference{Ref: github.String("refs/heads/" + branch), Object: &github.GitObject{SHA: github.String(sha)}}, force)
		return err
	}
	require.NoError(t, upd(child.GetSHA(), false), "fast-forward")
	assert.Equal(t, map[string]string{"spec.md": "# Spec\n"}, f.srv.BranchFiles(full, branch))
	err = upd(orphan.GetSHA(), false)
	require.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Update is not a fast forward", er.Message)
	require.NoError(t, upd(orphan.GetSHA(), true), "forced")

	refs, _, err := f.client.Git.ListMatchingRefs(c, owner, name, &github.ReferenceListOptions{Ref: "heads/cogworks/"})
	require.NoError(t, err)
	require.Len(t, refs, 1)

	_, err = f.client.Git.DeleteRef(c, owner, name, "heads/"+branch)
	require.NoError(t, err)
	_, _, err = f.client.Git.GetRef(c, owner, name, "heads/"+branch)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
	_, err = f.client.Git.DeleteRef(c, owner, name, "heads/"+branch)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))

	br, _, err := f.client.Repositories.GetBranch(c, owner, name, "main", 0)
	require.NoError(t, err)
	assert.Equal(t, base, br.GetCommit().GetSHA())
}

func TestSeedFilesDeterministicAcrossServers(t *testing.T) {
	seed := func() (string, map[string]string) {
		a := setup(t)
		sha := a.srv.SeedFiles(full, "main", map[string]string{"go.mod": "module x\n", "cmd/x/main.go": "package main\n"})
		return sha, a.srv.BranchFiles(full, "main")
	}
	sha1, files1 := seed()
	sha2, files2 := seed()
	assert.Equal(t, sha1, sha2)
	assert.Equal(t, files1, files2)
	assert.Len(t, sha1, 40)

	f := setup(t)
	assert.Empty(t, f.srv.SeedFiles("acme/none", "main", map[string]string{"a": "b"}), "unknown repo")
	assert.Nil(t, f.srv.BranchFiles(full, "no-branch"))
}
