package github

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/secrets"
)

// TestEveryWriteIsRedacted sends a secret, plain and encoded, through
// every method that writes text to GitHub and checks that no request
// body carries it.
func TestEveryWriteIsRedacted(t *testing.T) {
	t.Parallel()
	const secret = "adapter-secret-0123456789"
	leaks := []string{secret, hex.EncodeToString([]byte(secret)), base64.StdEncoding.EncodeToString([]byte(secret))}
	leak := strings.Join(leaks, " ")
	var mu sync.Mutex
	bodies := map[string]string{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.NotFound(w, r) // PutFile's lookup: the file is new
			return
		}
		b, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		mu.Lock()
		bodies[r.Method+" "+r.URL.Path] = string(b)
		mu.Unlock()
		writeJSON(t, w, http.StatusCreated, map[string]any{"id": 1, "number": 1})
	})
	c, _ := newTestClient(t, h, func(o *Options) { o.Redactor = secrets.New(secret) })
	ctx := context.Background()
	title := "title " + secret
	_, err := c.CreateIssue(ctx, testRepo, NewIssue{Title: title, Body: leak})
	require.NoError(t, err)
	_, err = c.UpdateIssue(ctx, testRepo, 1, IssueUpdate{Title: &title, Body: &leak})
	require.NoError(t, err)
	_, err = c.CreateComment(ctx, testRepo, 1, leak)
	require.NoError(t, err)
	_, err = c.EditComment(ctx, testRepo, 7, leak)
	require.NoError(t, err)
	_, err = c.CreatePull(ctx, testRepo, NewPull{Title: title, Body: leak, Head: "h", Base: "main"})
	require.NoError(t, err)
	_, err = c.CreateReview(ctx, testRepo, 1, NewReview{Event: ReviewComment, Body: leak, Comments: []InlineComment{{Path: "a.go", Line: 1, Body: leak}}})
	require.NoError(t, err)
	_, err = c.CreateTree(ctx, testRepo, "base", []TreeEntry{{Path: "a.go", Content: &leak}})
	require.NoError(t, err)
	_, err = c.CreateCommit(ctx, testRepo, "commit "+leak, "tree", nil)
	require.NoError(t, err)
	require.NoError(t, c.PutFile(ctx, testRepo, FileCommit{Path: "b.go", Branch: "main", Message: "put " + leak, Content: []byte(leak)}))

	require.Len(t, bodies, 9, "every write sent a request")
	for req, body := range bodies {
		decoded := body
		// PutFile sends the content base64-encoded, as the API wants.
		if strings.Contains(req, "/contents/") {
			decoded = base64Field(t, body)
		}
		for _, l := range leaks {
			assert.NotContains(t, body, l, req)
			assert.NotContains(t, decoded, l, req)
		}
		assert.Contains(t, decoded, secrets.Redacted, req)
	}
}

// base64Field returns the decoded "content" of a contents API request.
func base64Field(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `"content":"`)
	require.True(t, ok, body)
	enc, _, _ := strings.Cut(rest, `"`)
	dec, err := base64.StdEncoding.DecodeString(enc)
	require.NoError(t, err)
	return string(dec)
}

func TestWritesRedactTokenShapesWithoutARedactor(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("Z", 36)
	var got string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		writeJSON(t, w, http.StatusCreated, map[string]any{"id": 1})
	})
	c, _ := newTestClient(t, h)
	_, err := c.CreateComment(context.Background(), testRepo, 1, "token "+token)
	require.NoError(t, err)
	assert.NotContains(t, got, token)
	assert.Contains(t, got, secrets.Redacted)
}
