package github_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestCloseObsoleteSubIssueClosesItsOwnOnce: the bot's open sub-issue of
// the work item is closed as not planned; a second call finds it closed
// and sends no write.
func TestCloseObsoleteSubIssueClosesItsOwnOnce(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	parent := sim.SeedIssue("o/r", "alice", "Work item", "body")
	child := sim.SeedIssue("o/r", "cogworks[bot]", "Sub-work: c", "Part of #1.")
	require.True(t, sim.SeedSubIssue("o/r", parent, child))

	closed, err := c.CloseObsoleteSubIssue(ctx, simRepo, parent, child)
	require.NoError(t, err)
	assert.True(t, closed)
	is, ok := sim.Issue("o/r", child)
	require.True(t, ok)
	assert.Equal(t, "closed", is.State)
	assert.Equal(t, "not_planned", is.StateReason)

	sim.ResetRequests()
	closed, err = c.CloseObsoleteSubIssue(ctx, simRepo, parent, child)
	require.NoError(t, err)
	assert.False(t, closed, "already closed")
	for _, r := range sim.Requests() {
		assert.Equal(t, http.MethodGet, r.Method, "no write on an issue already closed: %s %s", r.Method, r.Path)
	}
}

// TestRedTeamCloseObsoleteSubIssueRefusesWhatCogWorksDidNotOpen: a re-plan
// whose records were tampered with (or a bug in it) asks the adapter to
// close a person's issue, a sub-issue a person attached, the bot's issue
// under another work item, a PR, or the work item itself. The adapter
// asks GitHub who opened the issue and whose sub-issue it is, and refuses
// each before any write. Without those checks (verified by deleting the
// author and sub-issue checks in CloseObsoleteSubIssue) each case here
// would be closed.
func TestRedTeamCloseObsoleteSubIssueRefusesWhatCogWorksDidNotOpen(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	parent := sim.SeedIssue("o/r", "alice", "Work item", "body")
	other := sim.SeedIssue("o/r", "alice", "Another work item", "body")
	persons := sim.SeedIssue("o/r", "alice", "Alice's own issue", "body")
	attached := sim.SeedIssue("o/r", "mallory", "Looks like a sub-work-item", "<!-- cogworks:swi=1/c -->")
	require.True(t, sim.SeedSubIssue("o/r", parent, attached))
	elsewhere := sim.SeedIssue("o/r", "cogworks[bot]", "Sub-work of another item", "Part of #2.")
	require.True(t, sim.SeedSubIssue("o/r", other, elsewhere))
	sim.SeedFiles("o/r", "cogworks/1/swi-1", map[string]string{"x.go": "package x\n"})
	pr, err := c.CreatePull(ctx, simRepo, github.NewPull{Title: "Build c", Head: "cogworks/1/swi-1", Base: "main", Body: "Part of #1."})
	require.NoError(t, err)

	for _, tc := range []struct {
		name   string
		number int
	}{
		{"a person's issue", persons},
		{"a person's issue attached as a sub-issue", attached},
		{"the bot's sub-issue of another work item", elsewhere},
		{"the bot's PR", pr.Number},
		{"the work item itself", parent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := sim.Issue("o/r", tc.number)
			closed, err := c.CloseObsoleteSubIssue(ctx, simRepo, parent, tc.number)
			var denied *github.DeniedError
			require.ErrorAs(t, err, &denied)
			assert.Equal(t, github.OpCloseObsoleteSubIssue, denied.Operation)
			assert.False(t, closed)
			after, _ := sim.Issue("o/r", tc.number)
			assert.Equal(t, before.State, after.State)
			assert.Equal(t, "open", after.State)
		})
	}
	for _, r := range sim.Requests() {
		assert.NotEqual(t, http.MethodPatch, r.Method, "no write: %s", r.Path)
	}
}

// TestClosingStaysDeniedBesideTheNarrowClose: the new capability does not
// open issues.close or pulls.close, and a manifest that allows them is
// still invalid.
func TestClosingStaysDeniedBesideTheNarrowClose(t *testing.T) {
	t.Parallel()
	m := github.DefaultManifest()
	require.NoError(t, m.Check(github.OpCloseObsoleteSubIssue))
	for _, op := range []github.Operation{github.OpCloseIssue, github.OpClosePull} {
		var denied *github.DeniedError
		require.ErrorAs(t, m.Check(op), &denied, op)
		bad := github.Manifest{Allow: append(m.Allow, op)}
		assert.Error(t, bad.Validate(), op)
	}
	c, _ := newSimClient(t)
	var denied *github.DeniedError
	require.ErrorAs(t, c.CloseIssue(context.Background(), simRepo, 1), &denied)
	require.ErrorAs(t, c.ClosePull(context.Background(), simRepo, 1), &denied)
}

// TestCloseObsoleteSubIssueWithoutASubIssueAPIClosesNothing: on GitHub
// Enterprise Server before 3.20 there is no sub-issue list to check the
// parent by, so even the bot's own issue is refused, before any write.
func TestCloseObsoleteSubIssueWithoutASubIssueAPIClosesNothing(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, githubsim.WithEnterprise("3.17.0"))
	ctx := context.Background()
	parent := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Work item", "body")
	child := env.Sim.SeedIssue(testenv.Repo.String(), testenv.Bot, "Sub-work: c", "Part of #1.")
	closed, err := env.Client.CloseObsoleteSubIssue(ctx, testenv.Repo, parent, child)
	var denied *github.DeniedError
	require.ErrorAs(t, err, &denied)
	assert.Contains(t, denied.Detail, "cannot be checked")
	assert.False(t, closed)
	is, _ := env.Sim.Issue(testenv.Repo.String(), child)
	assert.Equal(t, "open", is.State)
}
