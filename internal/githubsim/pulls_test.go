package githubsim

import (
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newPull(head, base string) *github.NewPullRequest {
	return &github.NewPullRequest{Title: github.String("PR " + head), Head: github.String(head), Base: github.String(base), Body: github.String("body")}
}

func TestPullCreateValidation(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "issue first")
	headSHA := f.srv.SeedFiles(full, "cogworks/12/spec", map[string]string{"spec.md": "# spec\n"})

	pr, _, err := f.client.PullRequests.Create(c, owner, name, newPull("acme:cogworks/12/spec", "main"))
	require.NoError(t, err)
	assert.Equal(t, 2, pr.GetNumber(), "numbers are shared with issues")
	assert.Equal(t, headSHA, pr.GetHead().GetSHA())
	assert.Equal(t, "cogworks/12/spec", pr.GetHead().GetRef())
	assert.Equal(t, "acme:cogworks/12/spec", pr.GetHead().GetLabel())
	assert.Equal(t, "main", pr.GetBase().GetRef())

	tests := []struct {
		name    string
		req     *github.NewPullRequest
		message string
		field   string
	}{
		{"duplicate", newPull("cogworks/12/spec", "main"), "A pull request already exists for acme:cogworks/12/spec.", ""},
		{"missing head", newPull("nope", "main"), "", "head"},
		{"missing base", newPull("cogworks/12/spec", "nope"), "", "base"},
		{"no commits", newPull("main", "main"), "No commits between main and main", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := f.client.PullRequests.Create(ctx(t), owner, name, tt.req)
			require.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
			var er *github.ErrorResponse
			require.ErrorAs(t, err, &er)
			assert.Equal(t, "Validation Failed", er.Message)
			require.Len(t, er.Errors, 1)
			assert.Equal(t, tt.message, er.Errors[0].Message)
			assert.Equal(t, tt.field, er.Errors[0].Field)
		})
	}

	is, _, err := f.client.Issues.Get(c, owner, name, 2)
	require.NoError(t, err)
	assert.True(t, is.IsPullRequest(), "issue view of a PR carries pull_request")
	plain, _, err := f.client.Issues.Get(c, owner, name, 1)
	require.NoError(t, err)
	assert.False(t, plain.IsPullRequest())
}

func TestPullListEditMerge(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.SeedFiles(full, "a", map[string]string{"a.txt": "a"})
	f.srv.SeedFiles(full, "b", map[string]string{"b.txt": "b"})
	f.srv.SeedFiles(full, "dev", map[string]string{"d.txt": "d"})
	for _, p := range []*github.NewPullRequest{newPull("a", "main"), newPull("b", "main"), newPull("a", "dev")} {
		_, _, err := f.client.PullRequests.Create(c, owner, name, p)
		require.NoError(t, err)
	}
	_, _, err := f.client.PullRequests.Edit(c, owner, name, 2, &github.PullRequest{State: github.String("closed"), Title: github.String("closed b")})
	require.NoError(t, err)

	tests := []struct {
		name string
		opt  github.PullRequestListOptions
		want []int
	}{
		{"open", github.PullRequestListOptions{}, []int{3, 1}},
		{"all", github.PullRequestListOptions{State: "all"}, []int{3, 2, 1}},
		{"head", github.PullRequestListOptions{Head: "acme:a"}, []int{3, 1}},
		{"head and base", github.PullRequestListOptions{Head: "acme:a", Base: "dev"}, []int{3}},
		{"foreign head owner", github.PullRequestListOptions{Head: "evil:a"}, nil},
		{"closed", github.PullRequestListOptions{State: "closed"}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, _, err := f.client.PullRequests.List(ctx(t), owner, name, &tt.opt)
			require.NoError(t, err)
			var got []int
			for _, p := range list {
				got = append(got, p.GetNumber())
			}
			assert.Equal(t, tt.want, got)
		})
	}

	res, _, err := f.client.PullRequests.Merge(c, owner, name, 1, "", nil)
	require.NoError(t, err)
	assert.True(t, res.GetMerged())
	assert.Equal(t, map[string]string{"a.txt": "a"}, f.srv.BranchFiles(full, "main"))
	pr, _, err := f.client.PullRequests.Get(c, owner, name, 1)
	require.NoError(t, err)
	assert.True(t, pr.GetMerged())
	assert.Equal(t, "closed", pr.GetState())
	_, _, err = f.client.PullRequests.Merge(c, owner, name, 1, "", nil)
	assert.Equal(t, http.StatusMethodNotAllowed, statusOf(t, err))

	merges := 0
	for _, r := range f.srv.Requests() {
		if r.Method == http.MethodPut && r.Path == "/repos/acme/widgets/pulls/1/merge" {
			merges++
		}
	}
	assert.Equal(t, 2, merges, "merge calls are visible in the request log")
}

func TestPullReviews(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.AddToken("tok-rev", "reviewer")
	reviewer := clientFor(t, f.url, "tok-rev")
	f.srv.SeedFiles(full, "feat", map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	_, _, err := f.client.PullRequests.Create(c, owner, name, newPull("feat", "main"))
	require.NoError(t, err)

	rv, _, err := f.client.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{
		Body: github.String("looks odd"), Event: github.String("COMMENT"),
		Comments: []*github.DraftReviewComment{{Path: github.String("main.go"), Line: github.Int(3), Body: github.String("empty main")}},
	})
	require.NoError(t, err)
	assert.Equal(t, "COMMENTED", rv.GetState())

	_, _, err = f.client.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{Event: github.String("APPROVE")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "cannot approve own PR")
	_, _, err = f.client.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{
		Event:    github.String("COMMENT"),
		Comments: []*github.DraftReviewComment{{Path: github.String("missing.go"), Line: github.Int(1), Body: github.String("x")}},
	})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "unknown path")
	ok, _, err := reviewer.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{Event: github.String("APPROVE")})
	require.NoError(t, err)
	assert.Equal(t, "APPROVED", ok.GetState())

	reviews, _, err := f.client.PullRequests.ListReviews(c, owner, name, 1, nil)
	require.NoError(t, err)
	require.Len(t, reviews, 2)
	comments, _, err := f.client.PullRequests.ListComments(c, owner, name, 1, nil)
	require.NoError(t, err)
	require.Len(t, comments, 1)
	assert.Equal(t, "main.go", comments[0].GetPath())
	assert.Equal(t, 3, comments[0].GetLine())
	assert.Equal(t, rv.GetID(), comments[0].GetPullRequestReviewID())

	pulls := f.srv.Pulls(full)
	require.Len(t, pulls, 1)
	require.Len(t, pulls[0].Reviews, 2)
	assert.Equal(t, []ReviewComment{{ID: comments[0].GetID(), Author: "cogworks[bot]", Path: "main.go", Line: 3,
		Body: "empty main", DiffHunk: comments[0].GetDiffHunk()}}, pulls[0].Reviews[0].Comments)
}
