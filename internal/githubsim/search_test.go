package githubsim

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenize(t *testing.T) {
	assert.Equal(t, []string{"repo:a/b", "label:needs review", "is:open", "two words"},
		tokenize(`repo:a/b  label:"needs review" is:open "two words"`))
	assert.Empty(t, tokenize("   "))
}

func TestSearchIssuesFilters(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.CreateRepo(owner, "other", "main")
	f.srv.SeedIssue(owner+"/other", "bob", "elsewhere", "", "cogworks:spec")
	f.createIssue(t, "spec me", "cogworks:spec", "needs review")     // 1
	f.createIssue(t, "plan me", "cogworks:plan")                     // 2
	f.createIssue(t, "closed spec", "cogworks:spec", "needs review") // 3
	_, _, err := f.client.Issues.Edit(c, owner, name, 3, &github.IssueRequest{State: github.String("closed")})
	require.NoError(t, err)
	f.srv.SeedFiles(full, "feature", map[string]string{"a.go": "package a\n"})
	_, _, err = f.client.PullRequests.Create(c, owner, name, &github.NewPullRequest{
		Title: github.String("pr spec"), Head: github.String("feature"), Base: github.String("main"),
	}) // 4
	require.NoError(t, err)
	_, _, err = f.client.Issues.AddLabelsToIssue(c, owner, name, 4, []string{"cogworks:spec"})
	require.NoError(t, err)

	tests := []struct {
		q    string
		want []int
	}{
		{"repo:acme/widgets", []int{4, 3, 2, 1}},
		{"repo:acme/widgets is:open", []int{4, 2, 1}},
		{"repo:acme/widgets state:closed", []int{3}},
		{"repo:acme/widgets is:issue label:cogworks:spec", []int{3, 1}},
		{"repo:acme/widgets is:pr", []int{4}},
		{`repo:acme/widgets label:"needs review" label:cogworks:spec is:open`, []int{1}},
		{"repo:acme/widgets -label:cogworks:spec", []int{2}},
		// negative qualifiers: quoted, repeated, next to positive ones, and
		// case-insensitive like GitHub's label match
		{`repo:acme/widgets is:issue -label:"needs review"`, []int{2}},
		{`repo:acme/widgets is:issue label:cogworks:spec -label:"Needs Review"`, []int{}},
		{`repo:acme/widgets -label:"cogworks:plan" -label:"needs review"`, []int{4}},
		{"repo:acme/widgets plan", []int{2}},
		{"label:cogworks:spec is:issue is:open", []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			res, _, err := f.client.Search.Issues(ctx(t), tt.q, &github.SearchOptions{})
			require.NoError(t, err)
			got := []int{}
			for _, is := range res.Issues {
				got = append(got, is.GetNumber())
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, len(tt.want), res.GetTotal())
			assert.False(t, res.GetIncompleteResults())
		})
	}

	res, resp, err := f.client.Search.Issues(c, "repo:acme/widgets", &github.SearchOptions{ListOptions: github.ListOptions{PerPage: 3, Page: 2}})
	require.NoError(t, err)
	assert.Equal(t, 4, res.GetTotal())
	require.Len(t, res.Issues, 1)
	assert.Equal(t, 1, res.Issues[0].GetNumber())
	assert.Equal(t, "search", resp.Header.Get("X-RateLimit-Resource"))
	assert.True(t, res.Issues[0].PullRequestLinks == nil)

	_, _, err = f.client.Search.Issues(c, "", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
}

// Text matches the title, body and comments unless in: narrows it, as on
// GitHub, and updated:<op><date> compares the issue's last update (a new
// comment is one).
func TestSearchIssuesCommentsAndUpdated(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "old", "cogworks:stage:intake") // 1, updated 03:04:05
	f.createIssue(t, "new")                          // 2
	f.clock.t = f.clock.t.Add(time.Hour)             // 04:04:05
	_, _, err := f.client.Issues.CreateComment(c, owner, name, 2, &github.IssueComment{Body: github.String("/cogworks retry")})
	require.NoError(t, err)

	tests := []struct {
		q    string
		want []int
	}{
		{"repo:acme/widgets cogworks", []int{2}}, // #1's label is no text; #2's comment is
		{"repo:acme/widgets retry in:comments", []int{2}},
		{"repo:acme/widgets retry in:title,body", []int{}},
		{"repo:acme/widgets old in:comments", []int{}},
		{"repo:acme/widgets updated:>=2026-01-02T04:00:00Z", []int{2}},
		{"repo:acme/widgets updated:<2026-01-02T04:00:00Z", []int{1}},
		{"repo:acme/widgets updated:>2026-01-01", []int{2, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			res, _, err := f.client.Search.Issues(ctx(t), tt.q, &github.SearchOptions{})
			require.NoError(t, err)
			got := []int{}
			for _, is := range res.Issues {
				got = append(got, is.GetNumber())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
