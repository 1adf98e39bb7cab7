package github_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
)

// newSimClient runs the adapter against a fresh simulator with repo o/r.
func newSimClient(t *testing.T) (*github.Client, *githubsim.Server) {
	t.Helper()
	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.CreateRepo("o", "r", "main")
	sim.AddToken("tok", "cogworks[bot]")
	c, err := github.New(context.Background(), github.Options{
		BaseURL: url + "/api/v3/", Token: "tok",
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	require.NoError(t, err)
	return c, sim
}

var simRepo = github.Repo{Owner: "o", Name: "r"}

func TestSimLabelsAndEvents(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	n := sim.SeedIssue("o/r", "alice", "Add CAN driver", "body")

	info, err := c.GetRepo(ctx, simRepo)
	require.NoError(t, err)
	assert.Equal(t, github.RepoInfo{FullName: "o/r", DefaultBranch: "main"}, info)

	require.NoError(t, c.CreateRepoLabel(ctx, simRepo, github.Label{Name: "cogworks:run", Color: "0e8a16", Description: "run"}))
	err = c.CreateRepoLabel(ctx, simRepo, github.Label{Name: "cogworks:run", Color: "0e8a16"})
	require.ErrorIs(t, err, github.ErrUnprocessable)
	labels, err := c.ListRepoLabels(ctx, simRepo)
	require.NoError(t, err)
	assert.Contains(t, labels, github.Label{Name: "cogworks:run", Color: "0e8a16", Description: "run"})

	require.NoError(t, c.AddLabels(ctx, simRepo, n, "cogworks:run", "cogworks:stage:intake"))
	require.NoError(t, c.RemoveLabel(ctx, simRepo, n, "cogworks:stage:intake"))
	require.ErrorIs(t, c.RemoveLabel(ctx, simRepo, n, "cogworks:stage:intake"), github.ErrNotFound)

	is, err := c.GetIssue(ctx, simRepo, n)
	require.NoError(t, err)
	assert.Equal(t, []string{"cogworks:run"}, is.Labels)
	assert.Equal(t, "alice", is.User)

	events, err := c.ListIssueEvents(ctx, simRepo, n)
	require.NoError(t, err)
	var seen []string
	for _, e := range events {
		if e.Actor == "cogworks[bot]" {
			seen = append(seen, e.Event+":"+e.Label)
		}
	}
	assert.Equal(t, []string{"labeled:cogworks:run", "labeled:cogworks:stage:intake", "unlabeled:cogworks:stage:intake"}, seen)

	open, err := c.ListIssues(ctx, simRepo, github.IssueFilter{Labels: []string{"cogworks:run"}})
	require.NoError(t, err)
	require.Len(t, open, 1)
	assert.Equal(t, n, open[0].Number)
}

func TestSimCommentsSubIssuesAndPermissions(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	parent := sim.SeedIssue("o/r", "alice", "parent", "")

	cm, err := c.CreateComment(ctx, simRepo, parent, "first")
	require.NoError(t, err)
	assert.Equal(t, "cogworks[bot]", cm.User)
	_, err = c.EditComment(ctx, simRepo, cm.ID, "edited")
	require.NoError(t, err)
	second, err := c.CreateComment(ctx, simRepo, parent, "second")
	require.NoError(t, err)
	require.NoError(t, c.DeleteComment(ctx, simRepo, second.ID))
	comments, err := c.ListComments(ctx, simRepo, parent)
	require.NoError(t, err)
	require.Len(t, comments, 1)
	assert.Equal(t, "edited", comments[0].Body)

	child, err := c.CreateIssue(ctx, simRepo, github.NewIssue{Title: "SWI 1", Labels: []string{"cogworks:swi"}})
	require.NoError(t, err)
	require.NoError(t, c.AddSubIssue(ctx, simRepo, parent, child.ID))
	subs, err := c.ListSubIssues(ctx, simRepo, parent)
	require.NoError(t, err)
	require.Len(t, subs, 1)
	assert.Equal(t, child.Number, subs[0].Number)

	sim.AddCollaborator("o/r", "maint", "maintain")
	for user, want := range map[string]string{"o": "admin", "maint": "maintain", "stranger": "read"} {
		got, err := c.CollaboratorPermission(ctx, simRepo, user)
		require.NoError(t, err)
		assert.Equal(t, want, got, user)
	}
}

func TestSimGitRoundTripAndPullRequest(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	sim.SeedFiles("o/r", "main", map[string]string{"README.md": "hello\n", ".cogworks/interfaces/can.toml": "id = \"x\"\n"})

	base, err := c.GetBranchSHA(ctx, simRepo, "main")
	require.NoError(t, err)
	baseCommit, err := c.GetCommit(ctx, simRepo, base)
	require.NoError(t, err)

	src := "package can\n"
	tree, err := c.CreateTree(ctx, simRepo, baseCommit.TreeSHA, []github.TreeEntry{{Path: "src/can/can.go", Content: &src}})
	require.NoError(t, err)
	commit, err := c.CreateCommit(ctx, simRepo, "Add CAN driver", tree, []string{base})
	require.NoError(t, err)
	assert.Equal(t, tree, commit.TreeSHA)
	assert.Equal(t, []string{base}, commit.Parents)

	const branch = "cogworks/1/swi-1"
	require.NoError(t, c.CreateBranch(ctx, simRepo, branch, commit.SHA))
	require.ErrorIs(t, c.CreateBranch(ctx, simRepo, branch, commit.SHA), github.ErrUnprocessable)
	head, err := c.GetBranchSHA(ctx, simRepo, branch)
	require.NoError(t, err)
	assert.Equal(t, commit.SHA, head)
	headCommit, err := c.GetBranchHead(ctx, simRepo, branch)
	require.NoError(t, err, "a branch name with slashes is one path segment")
	assert.Equal(t, github.Commit{SHA: commit.SHA, TreeSHA: tree}, headCommit)
	_, err = c.GetBranchHead(ctx, simRepo, "cogworks/1/missing")
	require.ErrorIs(t, err, github.ErrNotFound)

	entries, err := c.GetTree(ctx, simRepo, tree, true)
	require.NoError(t, err)
	paths := map[string]string{}
	for _, e := range entries {
		paths[e.Path] = e.Type
	}
	assert.Equal(t, "blob", paths["src/can/can.go"])
	assert.Equal(t, "blob", paths["README.md"])

	got, err := c.GetFile(ctx, simRepo, "src/can/can.go", branch)
	require.NoError(t, err)
	assert.Equal(t, src, string(got))
	_, err = c.GetFile(ctx, simRepo, "src/can/can.go", "main")
	require.ErrorIs(t, err, github.ErrNotFound)

	require.NoError(t, c.PutFile(ctx, simRepo, github.FileCommit{Path: "docs/spec.md", Branch: branch, Message: "Add spec", Content: []byte("# Spec\n")}))
	assert.Equal(t, "# Spec\n", sim.BranchFiles("o/r", branch)["docs/spec.md"])
	var denied *github.DeniedError
	require.ErrorAs(t, c.PutFile(ctx, simRepo, github.FileCommit{Path: ".cogworks/interfaces/can.toml", Branch: branch, Message: "m", Content: []byte("x")}), &denied)
	assert.Equal(t, "id = \"x\"\n", sim.BranchFiles("o/r", branch)[".cogworks/interfaces/can.toml"])

	pr, err := c.CreatePull(ctx, simRepo, github.NewPull{Title: "SWI 1", Body: "Refs #1", Head: branch, Base: "main"})
	require.NoError(t, err)
	assert.Equal(t, branch, pr.Head)
	_, err = c.CreatePull(ctx, simRepo, github.NewPull{Title: "SWI 1 again", Head: branch, Base: "main"})
	require.ErrorIs(t, err, github.ErrUnprocessable)

	prs, err := c.ListPulls(ctx, simRepo, github.PullFilter{Head: branch})
	require.NoError(t, err)
	require.Len(t, prs, 1)
	assert.Equal(t, pr.Number, prs[0].Number)

	_, err = c.CreateReview(ctx, simRepo, pr.Number, github.NewReview{Event: github.ReviewComment, Body: "findings",
		CommitID: commit.SHA, Comments: []github.InlineComment{{Path: "src/can/can.go", Line: 1, Body: "warning: doc comment"}}})
	require.NoError(t, err)
	inline, err := c.ListReviewComments(ctx, simRepo, pr.Number)
	require.NoError(t, err)
	require.Len(t, inline, 1)
	assert.Equal(t, github.InlineComment{Path: "src/can/can.go", Line: 1, Body: "warning: doc comment", User: "cogworks[bot]",
		ID: inline[0].ID, ReviewID: inline[0].ReviewID, DiffHunk: "@@ -0,0 +1,1 @@\n+package can", UserType: "Bot"}, inline[0], "listed with its author, thread and diff hunk")
	assert.NotZero(t, inline[0].ID)

	reply, err := c.ReplyToReviewComment(ctx, simRepo, pr.Number, inline[0].ID, "fixed in abc")
	require.NoError(t, err)
	assert.Equal(t, inline[0].ID, reply.InReplyTo, "the reply is in the comment's thread")
	assert.Equal(t, inline[0].Path, reply.Path)

	require.ErrorAs(t, c.MergePull(ctx, simRepo, pr.Number), &denied)
	fetched, err := c.GetPull(ctx, simRepo, pr.Number)
	require.NoError(t, err)
	assert.False(t, fetched.Merged)
	assert.Equal(t, "open", fetched.State)
	assert.Equal(t, "cogworks[bot]", fetched.User, "a PR carries the login that opened it")
}

func TestSimTransportBehaviour(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	n := sim.SeedIssue("o/r", "alice", "t", "")

	first, err := c.GetIssue(ctx, simRepo, n)
	require.NoError(t, err)
	before := sim.RequestCount()
	second, err := c.GetIssue(ctx, simRepo, n)
	require.NoError(t, err)
	assert.Equal(t, first, second)
	assert.Equal(t, before+1, sim.RequestCount())
	log := sim.Requests()
	assert.Equal(t, 304, log[len(log)-1].Status, "the repeated GET is answered 304 and served from cache")
	assert.Positive(t, c.RateLimit().Limit)

	require.NoError(t, sim.InjectFault(githubsim.Fault{Method: "GET", PathPattern: "/issues/[0-9]+$", Status: 502, Count: 1}))
	sent := c.Requests()
	_, err = c.GetIssue(ctx, simRepo, n)
	require.NoError(t, err)
	assert.EqualValues(t, sent+2, c.Requests(), "one 502 then a retry")
}
