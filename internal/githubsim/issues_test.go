package githubsim

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepoAndUnknownRoutes(t *testing.T) {
	f := setup(t)
	r, _, err := f.client.Repositories.Get(ctx(t), owner, name)
	require.NoError(t, err)
	assert.Equal(t, "main", r.GetDefaultBranch())
	assert.Equal(t, full, r.GetFullName())
	assert.NotZero(t, r.GetID())

	_, _, err = f.client.Repositories.Get(ctx(t), owner, "nope")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Not Found", er.Message)

	_, _, err = f.client.Issues.Get(ctx(t), owner, name, 99)
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
}

func TestRepoLabels(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	l, _, err := f.client.Issues.CreateLabel(c, owner, name, &github.Label{Name: github.String("cogworks:spec"), Color: github.String("FF0000")})
	require.NoError(t, err)
	assert.Equal(t, "ff0000", l.GetColor())

	_, _, err = f.client.Issues.CreateLabel(c, owner, name, &github.Label{Name: github.String("COGWORKS:spec")})
	require.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Validation Failed", er.Message)
	require.Len(t, er.Errors, 1)
	assert.Equal(t, "already_exists", er.Errors[0].Code)

	got, _, err := f.client.Issues.GetLabel(c, owner, name, "cogworks:spec")
	require.NoError(t, err)
	assert.Equal(t, l.GetID(), got.GetID())

	is := f.createIssue(t, "t", "cogworks:spec")
	_, _, err = f.client.Issues.EditLabel(c, owner, name, "cogworks:spec", &github.Label{Name: github.String("cogworks:plan")})
	require.NoError(t, err)
	assert.Equal(t, []string{"cogworks:plan"}, f.srv.Labels(full, is.GetNumber()))

	_, err = f.client.Issues.DeleteLabel(c, owner, name, "cogworks:plan")
	require.NoError(t, err)
	assert.Empty(t, f.srv.Labels(full, is.GetNumber()))
	_, _, err = f.client.Issues.GetLabel(c, owner, name, "cogworks:plan")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
}

func TestIssueCreateEditAndAutoLabels(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	is := f.createIssue(t, "Add widget", "a", "b")
	assert.Equal(t, 1, is.GetNumber())
	assert.Equal(t, "open", is.GetState())
	assert.Equal(t, DefaultActor, is.GetUser().GetLogin())
	assert.Equal(t, "Bot", is.GetUser().GetType())
	assert.ElementsMatch(t, []string{"a", "b"}, f.srv.RepoLabels(full), "labels are auto-created")

	_, _, err := f.client.Issues.Create(c, owner, name, &github.IssueRequest{})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err))

	edited, _, err := f.client.Issues.Edit(c, owner, name, 1, &github.IssueRequest{
		Title: github.String("Renamed"), State: github.String("closed"), Labels: &[]string{"b", "c"},
	})
	require.NoError(t, err)
	assert.Equal(t, "closed", edited.GetState())
	assert.Equal(t, "completed", edited.GetStateReason())
	_, _, err = f.client.Issues.Edit(c, owner, name, 1, &github.IssueRequest{StateReason: github.String("bored")})
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "a state_reason GitHub's description does not list")
	_, _, err = f.client.Issues.Edit(c, owner, name, 1, &github.IssueRequest{State: github.String("open")})
	require.NoError(t, err)
	edited, _, err = f.client.Issues.Edit(c, owner, name, 1, &github.IssueRequest{State: github.String("closed"), StateReason: github.String("not_planned")})
	require.NoError(t, err)
	assert.Equal(t, "not_planned", edited.GetStateReason())
	assert.NotNil(t, edited.ClosedAt)
	snap, ok := f.srv.Issue(full, 1)
	require.True(t, ok)
	assert.Equal(t, "Renamed", snap.Title)
	assert.Equal(t, []string{"b", "c"}, snap.Labels)

	var kinds []string
	for _, e := range f.srv.Events(full, 1) {
		kinds = append(kinds, e.Event+":"+e.Label)
	}
	assert.Equal(t, []string{"labeled:a", "labeled:b", "unlabeled:a", "labeled:c", "closed:", "reopened:", "closed:"}, kinds)
}

func TestListIssuesFilters(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "one", "x", "y")
	f.createIssue(t, "two", "x")
	f.createIssue(t, "three", "y")
	_, _, err := f.client.Issues.Edit(c, owner, name, 3, &github.IssueRequest{State: github.String("closed")})
	require.NoError(t, err)

	tests := []struct {
		name string
		opt  github.IssueListByRepoOptions
		want []int
	}{
		{"default open", github.IssueListByRepoOptions{}, []int{2, 1}},
		{"closed", github.IssueListByRepoOptions{State: "closed"}, []int{3}},
		{"all", github.IssueListByRepoOptions{State: "all"}, []int{3, 2, 1}},
		{"label x", github.IssueListByRepoOptions{Labels: []string{"x"}}, []int{2, 1}},
		{"labels AND", github.IssueListByRepoOptions{State: "all", Labels: []string{"x", "y"}}, []int{1}},
		{"asc", github.IssueListByRepoOptions{State: "all", Direction: "asc"}, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, _, err := f.client.Issues.ListByRepo(ctx(t), owner, name, &tt.opt)
			require.NoError(t, err)
			var got []int
			for _, is := range list {
				got = append(got, is.GetNumber())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestIssueLabelsAddRemove404(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.AddToken("human-token", "alice")
	human := clientFor(t, f.url, "human-token")
	f.createIssue(t, "t")

	labels, _, err := f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"cogworks:spec", "bug"})
	require.NoError(t, err)
	assert.Len(t, labels, 2)
	_, _, err = f.client.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"bug"})
	require.NoError(t, err)
	assert.Equal(t, []string{"cogworks:spec", "bug"}, f.srv.Labels(full, 1), "adding twice does not duplicate")

	_, err = human.Issues.RemoveLabelForIssue(c, owner, name, 1, "bug")
	require.NoError(t, err)
	_, err = f.client.Issues.RemoveLabelForIssue(c, owner, name, 1, "bug")
	require.Equal(t, http.StatusNotFound, statusOf(t, err))
	var er *github.ErrorResponse
	require.ErrorAs(t, err, &er)
	assert.Equal(t, "Label does not exist", er.Message)

	list, _, err := f.client.Issues.ReplaceLabelsForIssue(c, owner, name, 1, []string{"z"})
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "z", list[0].GetName())
	got, _, err := f.client.Issues.ListLabelsByIssue(c, owner, name, 1, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	_, err = f.client.Issues.RemoveLabelsForIssue(c, owner, name, 1)
	require.NoError(t, err)
	assert.Empty(t, f.srv.Labels(full, 1))

	_, err = f.client.Issues.RemoveLabelForIssue(c, owner, name, 42, "bug")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err), "unknown issue")
}

func TestEventsCarryActorAndTime(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.srv.AddToken("tok-alice", "alice")
	alice := clientFor(t, f.url, "tok-alice")
	f.createIssue(t, "t")
	_, _, err := alice.Issues.AddLabelsToIssue(c, owner, name, 1, []string{"cogworks:approved"})
	require.NoError(t, err)
	f.clock.t = f.clock.t.Add(time.Minute)
	_, err = f.client.Issues.RemoveLabelForIssue(c, owner, name, 1, "cogworks:approved")
	require.NoError(t, err)

	events, _, err := f.client.Issues.ListIssueEvents(c, owner, name, 1, nil)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, "labeled", events[0].GetEvent())
	assert.Equal(t, "alice", events[0].GetActor().GetLogin())
	assert.Equal(t, "cogworks:approved", events[0].GetLabel().GetName())
	assert.Equal(t, "unlabeled", events[1].GetEvent())
	assert.Equal(t, DefaultActor, events[1].GetActor().GetLogin())
	assert.Equal(t, f.clock.t, events[1].GetCreatedAt().Time)
	assert.True(t, events[0].GetCreatedAt().Before(events[1].GetCreatedAt().Time))

	opt := &github.ListOptions{PerPage: 1, Page: 2}
	page, resp, err := f.client.Issues.ListIssueEvents(c, owner, name, 1, opt)
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, "unlabeled", page[0].GetEvent())
	assert.Equal(t, 0, resp.NextPage)
}

// go-github v62 does not escape label names in paths, so callers must pass
// url.PathEscape(name); like GitHub, an unescaped "/" splits the path.
func TestLabelNamesNeedingEscapes(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	f.createIssue(t, "t")
	names := []string{"needs review", "area/api", "cogworks:stage:spec", "ünïcode"}
	_, _, err := f.client.Issues.AddLabelsToIssue(c, owner, name, 1, names)
	require.NoError(t, err)
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			l, _, err := f.client.Issues.GetLabel(ctx(t), owner, name, url.PathEscape(n))
			require.NoError(t, err)
			assert.Equal(t, n, l.GetName())
			_, err = f.client.Issues.RemoveLabelForIssue(ctx(t), owner, name, 1, url.PathEscape(n))
			require.NoError(t, err)
		})
	}
	assert.Empty(t, f.srv.Labels(full, 1))
	_, _, err = f.client.Issues.GetLabel(c, owner, name, "area/api")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err))
}

func TestUnknownIssueSubresources(t *testing.T) {
	f := setup(t)
	f.createIssue(t, "t")
	for _, p := range []string{"repos/acme/widgets/issues/1/bogus", "repos/acme/widgets/issues/9/comments", "repos/acme/widgets/issues/x/labels", "repos/acme/widgets/issues/comments/77"} {
		req, err := f.client.NewRequest("GET", p, nil)
		require.NoError(t, err)
		_, err = f.client.Do(ctx(t), req, nil)
		assert.Equal(t, http.StatusNotFound, statusOf(t, err), p)
	}
}
