package githubsim

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawGet sends GET path with an Accept header and returns status and body.
func (f fixture) rawGet(t *testing.T, path, accept string) (int, string) {
	t.Helper()
	return f.rawRequest(t, path, accept, "")
}

// rawGetAs sends GET path with token (none when empty).
func (f fixture) rawGetAs(t *testing.T, path, token string) (int, string) {
	t.Helper()
	return f.rawRequest(t, path, "", token)
}

func (f fixture) rawRequest(t *testing.T, path, accept, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, f.url+"/api/v3"+path, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if token != "" {
		req.Header.Set("Authorization", "token "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestContentsRefusesLargeFilesWithDefaultMediaType(t *testing.T) {
	f := setup(t)
	big := strings.Repeat("x", maxContentsBlob+1)
	f.srv.SeedFiles(full, "main", map[string]string{"big.bin": big, "small.txt": "hi"})
	path := "/repos/" + full + "/contents/big.bin"

	status, body := f.rawGet(t, path, "application/vnd.github+json")
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, `"code":"too_large"`)

	status, body = f.rawGet(t, path, "application/vnd.github.raw+json")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, big, body, "the raw media type serves the bytes")

	status, body = f.rawGet(t, path, "application/vnd.github.object+json")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"encoding":"none"`)

	status, _ = f.rawGet(t, "/repos/"+full+"/contents/small.txt", "")
	assert.Equal(t, http.StatusOK, status, "small files are served as before")

	f.srv.Relax(RuleContentsSize)
	status, _ = f.rawGet(t, path, "")
	assert.Equal(t, http.StatusOK, status, "relaxed, the rule is off")
}

func TestContentsObjectMediaTypeListsDirectories(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"docs/a.md": "A"})
	status, body := f.rawGet(t, "/repos/"+full+"/contents/docs", "application/vnd.github.object")
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"type":"dir"`)
	assert.Contains(t, body, `"entries":[{`)
}

func TestBlobRawMediaType(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"README.md": "hello\n"})
	status, body := f.rawGet(t, "/repos/"+full+"/git/blobs/"+helloBlob, "application/vnd.github.raw")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "hello\n", body)
}

// numbered returns lines "l1".."ln", one a line.
func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := "l" + strconv.Itoa(i)
		if c, ok := change[i]; ok {
			line = c
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestReviewCommentsMustBeInTheDiff(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.SeedFiles(full, "main", map[string]string{"a.go": numbered(30, nil)})
	f.srv.SeedFiles(full, "feat", map[string]string{"a.go": numbered(30, map[int]string{15: "changed"})})
	_, _, err := f.client.PullRequests.Create(c, owner, name, newPull("feat", "main"))
	require.NoError(t, err)

	files, _, err := f.client.PullRequests.ListFiles(c, owner, name, 1, nil)
	require.NoError(t, err)
	require.Len(t, files, 1)
	assert.Equal(t, "a.go", files[0].GetFilename())
	assert.Equal(t, "@@ -12,7 +12,7 @@\n l12\n l13\n l14\n-l15\n+changed\n l16\n l17\n l18", files[0].GetPatch())

	comment := func(line int) error {
		_, _, err := f.client.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{
			Event:    github.String("COMMENT"),
			Comments: []*github.DraftReviewComment{{Path: github.String("a.go"), Line: github.Int(line), Side: github.String("RIGHT"), Body: github.String("x")}},
		})
		return err
	}
	require.NoError(t, comment(15), "the changed line")
	require.NoError(t, comment(12), "a context line")
	err = comment(2)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	assert.Contains(t, err.Error(), "must be part of the diff")

	f.srv.Relax(RuleReviewDiff)
	require.NoError(t, comment(2), "relaxed, any line of the file")
}

func TestDiffFileHunks(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []int
	}{
		{"added file", "", "a\nb\n", []int{1, 2}},
		{"change at top", numbered(10, nil), numbered(10, map[int]string{1: "x"}), []int{1, 2, 3, 4}},
		{"two hunks", numbered(20, nil), numbered(20, map[int]string{2: "x", 19: "y"}), []int{1, 2, 3, 4, 5, 16, 17, 18, 19, 20}},
		{"deleted file", "a\n", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, right, _, _ := diffFile(tt.old, tt.new)
			var got []int
			for l := range right {
				got = append(got, l)
			}
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}

func TestEnterpriseServerWithoutSubIssues(t *testing.T) {
	tests := []struct {
		version string
		want    int
	}{
		{"3.17.2", http.StatusNotFound},
		{"3.19.0", http.StatusNotFound},
		{"3.20.0", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			f := setup(t, WithEnterprise(tt.version))
			n := f.srv.SeedIssue(full, "alice", "parent", "")
			status, _ := f.rawGet(t, "/repos/"+full+"/issues/"+strconv.Itoa(n)+"/sub_issues", "")
			assert.Equal(t, tt.want, status)
			status, _ = f.rawGet(t, "/repos/"+full+"/issues/"+strconv.Itoa(n), "")
			assert.Equal(t, http.StatusOK, status, "issues themselves exist")
		})
	}
}

func TestBodiesOverGitHubsLimitAreRefused(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	n := f.srv.SeedIssue(full, "alice", "t", "")
	atLimit := strings.Repeat("é", MaxBodyChars) // characters, not bytes
	_, _, err := f.client.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String(atLimit)})
	require.NoError(t, err)
	_, _, err = f.client.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String(atLimit + "x")})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	assert.Contains(t, err.Error(), "body is too long")
	_, _, err = f.client.Issues.Create(c, owner, name, &github.IssueRequest{Title: github.String("t"), Body: github.String(atLimit + "x")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	_, _, err = f.client.Issues.Edit(c, owner, name, n, &github.IssueRequest{Body: github.String(atLimit + "x")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
}

func TestMovedIssueAnswers301(t *testing.T) {
	f := setup(t)
	f.srv.CreateRepo(owner, "elsewhere", "main")
	n := f.srv.SeedIssue(full, "alice", "moving", "b")
	m := f.srv.MoveIssue(full, n, owner+"/elsewhere")
	require.NotZero(t, m)

	req, err := http.NewRequestWithContext(ctx(t), http.MethodPost,
		f.url+"/api/v3/repos/"+full+"/issues/"+strconv.Itoa(n)+"/comments", strings.NewReader(`{"body":"hi"}`))
	require.NoError(t, err)
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMovedPermanently, resp.StatusCode)
	assert.True(t, strings.HasSuffix(resp.Header.Get("Location"), "/repos/"+owner+"/elsewhere/issues/"+strconv.Itoa(m)+"/comments"))

	is, _, err := f.client.Issues.Get(ctx(t), owner, name, n)
	require.NoError(t, err, "a GET follows the redirect")
	assert.Equal(t, m, is.GetNumber())
}

func TestSearchCanBeIncomplete(t *testing.T) {
	f := setup(t)
	for i := range 4 {
		f.srv.SeedIssue(full, "alice", "bug "+strconv.Itoa(i), "", "bug")
	}
	f.srv.SetSearchIncomplete(1)
	res, _, err := f.client.Search.Issues(ctx(t), "repo:"+full+" label:bug", nil)
	require.NoError(t, err)
	assert.True(t, res.GetIncompleteResults())
	assert.Len(t, res.Issues, 2, "part of the matches")
	res, _, err = f.client.Search.Issues(ctx(t), "repo:"+full+" label:bug", nil)
	require.NoError(t, err)
	assert.False(t, res.GetIncompleteResults())
	assert.Len(t, res.Issues, 4)
}
