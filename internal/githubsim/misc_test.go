package githubsim

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestActorsUsersAndSeedHelpers(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	u, _, err := f.client.Users.Get(c, "")
	require.NoError(t, err)
	assert.Equal(t, DefaultActor, u.GetLogin())

	f.srv.SetActor("octo")
	f.srv.AddToken("tok", "alice")
	u, _, err = f.client.Users.Get(c, "")
	require.NoError(t, err)
	assert.Equal(t, "octo", u.GetLogin(), "unknown token falls back to SetActor")
	u, _, err = clientFor(t, f.url, "tok").Users.Get(c, "")
	require.NoError(t, err)
	assert.Equal(t, "alice", u.GetLogin())
	u, _, err = f.client.Users.Get(c, "alice")
	require.NoError(t, err)
	assert.Equal(t, "User", u.GetType())
	_, _, err = f.client.Users.Get(c, "ghost")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))

	n := f.srv.SeedIssue(full, "bob", "seeded", "body", "cogworks:spec")
	assert.True(t, f.srv.LabelIssue(full, n, "carol", "cogworks:approved"))
	assert.False(t, f.srv.LabelIssue(full, 99, "carol", "x"))
	ev := f.srv.Events(full, n)
	require.Len(t, ev, 2)
	assert.Equal(t, Event{Actor: "carol", Event: "labeled", Label: "cogworks:approved", CreatedAt: f.clock.t}, ev[1])
	is, _, err := f.client.Issues.Get(c, owner, name, n)
	require.NoError(t, err)
	assert.Equal(t, "bob", is.GetUser().GetLogin())
	assert.Equal(t, "NONE", is.GetAuthorAssociation())
}

func TestRepoLabelListPaginationAndRepoComments(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	for i := 0; i < 5; i++ {
		_, _, err := f.client.Issues.CreateLabel(c, owner, name, &github.Label{Name: github.String(fmt.Sprintf("l%d", i))})
		require.NoError(t, err)
	}
	var all []string
	opt := &github.ListOptions{PerPage: 2}
	for {
		page, resp, err := f.client.Issues.ListLabels(c, owner, name, opt)
		require.NoError(t, err)
		for _, l := range page {
			all = append(all, l.GetName())
		}
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	assert.Equal(t, []string{"l0", "l1", "l2", "l3", "l4"}, all)
	_, _, err := f.client.Issues.CreateLabel(c, owner, name, &github.Label{Name: github.String("bad"), Color: github.String("zzz")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))

	f.createIssue(t, "a")
	f.createIssue(t, "b")
	for _, n := range []int{2, 1} {
		_, _, err := f.client.Issues.CreateComment(c, owner, name, n, &github.IssueComment{Body: github.String(fmt.Sprint(n))})
		require.NoError(t, err)
	}
	list, _, err := f.client.Issues.ListComments(c, owner, name, 0, nil)
	require.NoError(t, err, "issue 0 lists every comment in the repo")
	require.Len(t, list, 2)
	assert.Equal(t, "2", list[0].GetBody())
}

func TestRemoveSubIssue(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "epic")
	child := f.createIssue(t, "child")
	do := func(method, path string, body any) error {
		req, err := f.client.NewRequest(method, path, body)
		require.NoError(t, err)
		_, err = f.client.Do(c, req, nil)
		return err
	}
	require.NoError(t, do("POST", "repos/acme/widgets/issues/1/sub_issues", subIssue{child.GetID()}))
	require.NoError(t, do("DELETE", "repos/acme/widgets/issues/1/sub_issue", subIssue{child.GetID()}))
	snap, _ := f.srv.Issue(full, 1)
	assert.Empty(t, snap.SubIssues)
	assert.Equal(t, http.StatusNotFound, statusOf(t, do("DELETE", "repos/acme/widgets/issues/1/sub_issue", subIssue{child.GetID()})))
	require.NoError(t, do("POST", "repos/acme/widgets/issues/1/sub_issues", subIssue{child.GetID()}), "can re-link after removal")
}

func TestRefListingBranchesAndBlobs(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.SeedFiles(full, "cogworks/1/spec", map[string]string{"a": "a"})
	f.srv.SeedFiles(full, "cogworks/1/plan", map[string]string{"b": "b"})

	req, err := f.client.NewRequest("GET", "repos/acme/widgets/git/matching-refs/heads/cogworks", nil)
	require.NoError(t, err)
	var refs []*github.Reference
	_, err = f.client.Do(c, req, &refs)
	require.NoError(t, err)
	require.Len(t, refs, 2)
	assert.Equal(t, "refs/heads/cogworks/1/plan", refs[0].GetRef())

	branches, _, err := f.client.Repositories.ListBranches(c, owner, name, nil)
	require.NoError(t, err)
	require.Len(t, branches, 3)
	assert.Equal(t, "main", branches[2].GetName())
	_, _, err = f.client.Repositories.GetBranch(c, owner, name, "nope", 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "404")

	b, _, err := f.client.Git.CreateBlob(c, owner, name, &github.Blob{Content: github.String(base64.StdEncoding.EncodeToString([]byte("hello\n"))), Encoding: github.String("base64")})
	require.NoError(t, err)
	assert.Equal(t, helloBlob, b.GetSHA())
	_, _, err = f.client.Git.CreateBlob(c, owner, name, &github.Blob{Content: github.String("%%%"), Encoding: github.String("base64")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
}

func TestLabelBodyFormsAndMalformedJSON(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	for _, body := range []any{
		map[string]any{"labels": []string{"a"}},
		map[string]any{"labels": []map[string]string{{"name": "b"}}},
	} {
		req, err := f.client.NewRequest("POST", "repos/acme/widgets/issues/1/labels", body)
		require.NoError(t, err)
		_, err = f.client.Do(c, req, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"a", "b"}, f.srv.Labels(full, 1))
	_, _, err := f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{" "})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))

	resp, err := http.Post(f.url+"/api/v3/repos/acme/widgets/issues", "application/json", bytes.NewBufferString("{"))
	require.NoError(t, err)
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	assert.Contains(t, string(raw), "Problems parsing JSON")
}

func TestRateLimitEndpointAndSearchBudget(t *testing.T) {
	f := setup(t, WithSearchRateLimit(1), WithRateLimitWindow(time.Minute))
	c := ctx(t)
	_, resp, err := f.client.Search.Issues(c, "repo:acme/widgets", nil)
	require.NoError(t, err)
	assert.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
	assert.Equal(t, f.clock.t.Add(time.Minute).Unix(), resp.Rate.Reset.Unix())
	_, _, err = clientFor(t, f.url, "").Search.Issues(c, "repo:acme/widgets", nil)
	var rle *github.RateLimitError
	require.ErrorAs(t, err, &rle, "search budget spent")
	_, _, err = f.client.Repositories.Get(c, owner, name)
	require.NoError(t, err, "core budget is separate")

	limits, _, err := f.client.RateLimit.Get(c)
	require.NoError(t, err)
	assert.Equal(t, 4999, limits.GetCore().Remaining)
	assert.Equal(t, 0, limits.GetSearch().Remaining)
	limits, _, err = f.client.RateLimit.Get(c)
	require.NoError(t, err)
	assert.Equal(t, 4999, limits.GetCore().Remaining, "GET /rate_limit is free")
}
