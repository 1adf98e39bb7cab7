package githubsim

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCommentsPaginationWithLinkHeaders(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	for i := 1; i <= 7; i++ {
		_, _, err := f.client.Issues.CreateComment(c, owner, name, 1, &github.IssueComment{Body: github.String(fmt.Sprintf("c%d", i))})
		require.NoError(t, err)
	}

	opt := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 3}}
	var bodies []string
	pages := 0
	for {
		list, resp, err := f.client.Issues.ListComments(c, owner, name, 1, opt)
		require.NoError(t, err)
		pages++
		if pages == 1 {
			link := resp.Header.Get("Link")
			assert.Contains(t, link, `rel="next"`)
			assert.Contains(t, link, `rel="last"`)
			assert.Contains(t, link, "/api/v3/repos/acme/widgets/issues/1/comments?")
			assert.Equal(t, 3, resp.LastPage)
		}
		for _, cm := range list {
			bodies = append(bodies, cm.GetBody())
		}
		if resp.NextPage == 0 {
			assert.Equal(t, 2, resp.PrevPage)
			assert.Equal(t, 1, resp.FirstPage)
			break
		}
		opt.Page = resp.NextPage
	}
	assert.Equal(t, 3, pages)
	assert.Equal(t, []string{"c1", "c2", "c3", "c4", "c5", "c6", "c7"}, bodies)

	is, _, err := f.client.Issues.Get(c, owner, name, 1)
	require.NoError(t, err)
	assert.Equal(t, 7, is.GetComments())
}

func TestCommentEditDelete(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	cm, _, err := f.client.Issues.CreateComment(c, owner, name, 1, &github.IssueComment{Body: github.String("hello")})
	require.NoError(t, err)
	assert.Equal(t, DefaultActor, cm.GetUser().GetLogin())

	f.clock.t = f.clock.t.Add(time.Hour)
	edited, _, err := f.client.Issues.EditComment(c, owner, name, cm.GetID(), &github.IssueComment{Body: github.String("bye")})
	require.NoError(t, err)
	assert.Equal(t, "bye", edited.GetBody())
	assert.True(t, edited.GetUpdatedAt().After(edited.GetCreatedAt().Time))

	got, _, err := f.client.Issues.GetComment(c, owner, name, cm.GetID())
	require.NoError(t, err)
	assert.Equal(t, "bye", got.GetBody())
	require.Len(t, f.srv.Comments(full, 1), 1)

	_, err = f.client.Issues.DeleteComment(c, owner, name, cm.GetID())
	require.NoError(t, err)
	assert.Empty(t, f.srv.Comments(full, 1))
	_, _, err = f.client.Issues.GetComment(c, owner, name, cm.GetID())
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
	_, _, err = f.client.Issues.CreateComment(c, owner, name, 1, &github.IssueComment{Body: github.String("")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
}

func TestCollaboratorPermission(t *testing.T) {
	f := setup(t)
	for _, p := range []string{"admin", "maintain", "write", "triage", "read"} {
		f.srv.AddCollaborator(full, "user-"+p, p)
	}
	tests := []struct {
		login   string
		private bool
		want    string
	}{
		{owner, false, "admin"},
		{"user-admin", false, "admin"},
		{"user-maintain", false, "write"},
		{"user-write", false, "write"},
		{"user-triage", false, "read"},
		{"user-read", false, "read"},
		{"stranger", false, "read"},
		{"stranger", true, "none"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s private=%v", tt.login, tt.private), func(t *testing.T) {
			f.srv.SetPrivate(full, tt.private)
			lvl, _, err := f.client.Repositories.GetPermissionLevel(ctx(t), owner, name, tt.login)
			require.NoError(t, err)
			assert.Equal(t, tt.want, lvl.GetPermission())
			assert.Equal(t, tt.login, lvl.GetUser().GetLogin())
		})
	}

	// role_name carries the exact role for callers that need maintain/triage.
	req, err := f.client.NewRequest("GET", "repos/acme/widgets/collaborators/user-maintain/permission", nil)
	require.NoError(t, err)
	var raw map[string]any
	_, err = f.client.Do(ctx(t), req, &raw)
	require.NoError(t, err)
	assert.Equal(t, "maintain", raw["role_name"])

	ok, _, err := f.client.Repositories.IsCollaborator(ctx(t), owner, name, "user-write")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, _, err = f.client.Repositories.IsCollaborator(ctx(t), owner, name, "stranger")
	require.NoError(t, err)
	assert.False(t, ok)
}

// subIssue is the sub-issues API body; go-github v62 predates the API.
type subIssue struct {
	SubIssueID int64 `json:"sub_issue_id"`
}

func TestSubIssues(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	parent := f.createIssue(t, "epic")
	child := f.createIssue(t, "child")
	other := f.createIssue(t, "other parent")

	add := func(parentNum int, childID int64) (*github.Issue, error) {
		req, err := f.client.NewRequest("POST", fmt.Sprintf("repos/acme/widgets/issues/%d/sub_issues", parentNum), subIssue{childID})
		require.NoError(t, err)
		var out github.Issue
		_, err = f.client.Do(c, req, &out)
		return &out, err
	}
	got, err := add(parent.GetNumber(), child.GetID())
	require.NoError(t, err)
	assert.Equal(t, child.GetNumber(), got.GetNumber())

	_, err = add(parent.GetNumber(), child.GetID())
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "duplicate")
	_, err = add(other.GetNumber(), child.GetID())
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "already has a parent")
	_, err = add(parent.GetNumber(), int64(child.GetNumber()))
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "a number is not an id")

	req, err := f.client.NewRequest("GET", "repos/acme/widgets/issues/1/sub_issues", nil)
	require.NoError(t, err)
	var list []*github.Issue
	_, err = f.client.Do(c, req, &list)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "child", list[0].GetTitle())

	snap, _ := f.srv.Issue(full, child.GetNumber())
	assert.Equal(t, parent.GetNumber(), snap.Parent)
	var raw map[string]any
	req, err = f.client.NewRequest("GET", "repos/acme/widgets/issues/1", nil)
	require.NoError(t, err)
	_, err = f.client.Do(c, req, &raw)
	require.NoError(t, err)
	assert.EqualValues(t, 1, raw["sub_issues_summary"].(map[string]any)["total"])
	assert.True(t, strings.HasSuffix(raw["url"].(string), "/api/v3/repos/acme/widgets/issues/1"))
}
