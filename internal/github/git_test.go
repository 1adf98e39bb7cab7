package github

import (
	"context"
	"encoding/base64"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGitObjects(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/git/ref/heads/cogworks/4/swi-1", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"ref": "refs/heads/cogworks/4/swi-1", "object": map[string]any{"sha": "c1", "type": "commit"}})
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/git/ref/heads/missing", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 404, map[string]any{"message": "Not Found"})
	})
	mux.HandleFunc("POST /api/v3/repos/o/r/git/refs", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"ref": "refs/heads/feature", "sha": "c1"}, readJSON(t, r))
		writeJSON(t, w, 201, map[string]any{"ref": "refs/heads/feature"})
	})
	mux.HandleFunc("PATCH /api/v3/repos/o/r/git/refs/heads/feature", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"sha": "c2", "force": true}, readJSON(t, r))
		writeJSON(t, w, 200, map[string]any{"ref": "refs/heads/feature"})
	})
	mux.HandleFunc("POST /api/v3/repos/o/r/git/trees", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"base_tree": "t0", "tree": []any{
			map[string]any{"path": "src/a.go", "mode": "100644", "type": "blob", "content": "package a\n"},
			map[string]any{"path": "run.sh", "mode": "100755", "type": "blob", "sha": "b1"},
			map[string]any{"path": "old.txt", "mode": "100644", "type": "blob", "sha": nil},
		}}, readJSON(t, r))
		writeJSON(t, w, 201, map[string]any{"sha": "t1"})
	})
	mux.HandleFunc("POST /api/v3/repos/o/r/git/commits", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, map[string]any{"message": "msg", "tree": "t1", "parents": []any{"c1"}}, readJSON(t, r))
		writeJSON(t, w, 201, map[string]any{"sha": "c2", "message": "msg", "tree": map[string]any{"sha": "t1"},
			"parents": []map[string]any{{"sha": "c1"}}})
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/git/commits/c2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"sha": "c2", "message": "msg", "tree": map[string]any{"sha": "t1"},
			"parents": []map[string]any{{"sha": "c1"}}})
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/git/trees/t1", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "1", r.URL.Query().Get("recursive"))
		writeJSON(t, w, 200, map[string]any{"sha": "t1", "tree": []map[string]any{
			{"path": "src", "mode": "040000", "type": "tree", "sha": "t2"},
			{"path": "src/a.go", "mode": "100644", "type": "blob", "sha": "b2"}}})
	})
	mux.HandleFunc("GET /api/v3/repos/o/r/git/trees/huge", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(t, w, 200, map[string]any{"sha": "huge", "truncated": true, "tree": []map[string]any{}})
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()

	sha, err := c.GetBranchSHA(ctx, testRepo, "cogworks/4/swi-1")
	require.NoError(t, err)
	assert.Equal(t, "c1", sha)
	_, err = c.GetBranchSHA(ctx, testRepo, "missing")
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, c.CreateBranch(ctx, testRepo, "feature", "c1"))
	require.NoError(t, c.UpdateBranch(ctx, testRepo, "feature", "c2", true))

	src := "package a\n"
	tree, err := c.CreateTree(ctx, testRepo, "t0", []TreeEntry{
		{Path: "src/a.go", Content: &src},
		{Path: "run.sh", Mode: "100755", SHA: "b1"},
		{Path: "old.txt", Delete: true},
	})
	require.NoError(t, err)
	assert.Equal(t, "t1", tree)

	commit, err := c.CreateCommit(ctx, testRepo, "msg", "t1", []string{"c1"})
	require.NoError(t, err)
	want := Commit{SHA: "c2", TreeSHA: "t1", Message: "msg", Parents: []string{"c1"}}
	assert.Equal(t, want, commit)
	got, err := c.GetCommit(ctx, testRepo, "c2")
	require.NoError(t, err)
	assert.Equal(t, want, got)

	entries, err := c.GetTree(ctx, testRepo, "t1", true)
	require.NoError(t, err)
	assert.Equal(t, []TreeEntry{{Path: "src", Mode: "040000", Type: "tree", SHA: "t2"},
		{Path: "src/a.go", Mode: "100644", Type: "blob", SHA: "b2"}}, entries)
	_, err = c.GetTree(ctx, testRepo, "huge", true)
	require.ErrorContains(t, err, "truncated")

	_, err = c.CreateTree(ctx, testRepo, "t0", []TreeEntry{{Path: "a"}})
	require.ErrorContains(t, err, `entry "a": set Content, SHA or Delete`)
}

func TestFiles(t *testing.T) {
	t.Parallel()
	var created, updated atomic.Int64
	files := map[string]string{"docs/spec.md": "# Spec\n"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/contents/{path...}", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "main", r.URL.Query().Get("ref"))
		body, ok := files[r.PathValue("path")]
		if !ok {
			writeJSON(t, w, 404, map[string]any{"message": "Not Found"})
			return
		}
		writeJSON(t, w, 200, map[string]any{"type": "file", "encoding": "base64", "sha": "s1",
			"path": r.PathValue("path"), "content": base64.StdEncoding.EncodeToString([]byte(body))})
	})
	mux.HandleFunc("PUT /api/v3/repos/o/r/contents/{path...}", func(w http.ResponseWriter, r *http.Request) {
		body := readJSON(t, r)
		content, err := base64.StdEncoding.DecodeString(body["content"].(string))
		require.NoError(t, err)
		assert.Equal(t, "main", body["branch"])
		if _, exists := files[r.PathValue("path")]; exists {
			assert.Equal(t, "s1", body["sha"])
			updated.Add(1)
		} else {
			assert.NotContains(t, body, "sha")
			created.Add(1)
		}
		files[r.PathValue("path")] = string(content)
		writeJSON(t, w, 200, map[string]any{"content": map[string]any{"sha": "s2"}})
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()

	got, err := c.GetFile(ctx, testRepo, "docs/spec.md", "main")
	require.NoError(t, err)
	assert.Equal(t, "# Spec\n", string(got))
	_, err = c.GetFile(ctx, testRepo, "nope.md", "main")
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, c.PutFile(ctx, testRepo, FileCommit{Path: "docs/new.md", Branch: "main", Message: "add", Content: []byte("new")}))
	require.NoError(t, c.PutFile(ctx, testRepo, FileCommit{Path: "docs/spec.md", Branch: "main", Message: "edit", Content: []byte("# Spec v2\n")}))
	require.NoError(t, c.PutFile(ctx, testRepo, FileCommit{Path: "docs/new.md", Branch: "main", Message: "again", Content: []byte("new")}))
	assert.EqualValues(t, 1, created.Load())
	assert.EqualValues(t, 1, updated.Load(), "unchanged content makes no commit")
	assert.Equal(t, "# Spec v2\n", files["docs/spec.md"])
}
