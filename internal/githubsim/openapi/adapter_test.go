package openapi_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
	"github.com/cogworks/cogworks/internal/testenv"
)

func description(t *testing.T) *openapi.Description {
	t.Helper()
	d, err := openapi.Default()
	require.NoError(t, err)
	return d
}

// exerciseAdapter calls every method of the adapter that talks to GitHub,
// the way the pipeline does: read the repository and the issue, plan
// sub-issues, write a branch and a PR, review it, and the error paths the
// engine branches on (a missing file, a taken branch, a non-collaborator).
func exerciseAdapter(t *testing.T, env *testenv.Env) {
	t.Helper()
	ctx := context.Background()
	c, repo := env.Client, testenv.Repo
	must := func(err error) {
		t.Helper()
		require.NoError(t, err)
	}
	_, err := c.Identity(ctx)
	must(err)
	_, err = c.Access(ctx, repo)
	must(err)
	_, err = c.GetRepo(ctx, repo)
	must(err)
	_, err = c.FetchRateLimit(ctx)
	must(err)
	_, err = c.ActionsCanCreatePullRequests(ctx, repo)
	must(err)

	must(c.CreateRepoLabel(ctx, repo, github.Label{Name: "cogworks:run", Color: "0e8a16", Description: "run the pipeline"}))
	_, err = c.ListRepoLabels(ctx, repo)
	must(err)
	n := env.Sim.SeedIssue(repo.String(), "alice", "Add a greeter", "Say hello.", "cogworks:run")
	_, err = c.GetIssue(ctx, repo, n)
	must(err)
	_, err = c.ListIssues(ctx, repo, github.IssueFilter{State: "open", Labels: []string{"cogworks:run"}})
	must(err)
	_, err = c.SearchIssues(ctx, "repo:acme/widgets is:issue label:cogworks:run")
	must(err)
	_, err = c.ListIssueEvents(ctx, repo, n)
	must(err)
	for _, who := range []string{"alice", "stranger"} {
		_, err = c.CollaboratorPermission(ctx, repo, who)
		must(err)
	}
	must(c.AddLabels(ctx, repo, n, "cogworks:stage:spec", "cogworks:lock"))
	_, err = c.SetLabels(ctx, repo, n, []string{"cogworks:run", "cogworks:stage:plan"})
	must(err)
	must(c.RemoveLabel(ctx, repo, n, "cogworks:stage:plan"))
	_, err = c.SetLabels(ctx, repo, n, nil)
	must(err)
	title, body := "Add a greeter (spec)", "The spec."
	_, err = c.UpdateIssue(ctx, repo, n, github.IssueUpdate{Title: &title, Body: &body})
	must(err)

	cm, err := c.CreateComment(ctx, repo, n, "<!-- cogworks:status -->\nWorking on it.")
	must(err)
	_, err = c.EditComment(ctx, repo, cm.ID, "<!-- cogworks:status -->\nDone.")
	must(err)
	must(c.CreateReaction(ctx, repo, cm.ID, github.ReactionEyes))
	_, err = c.ListComments(ctx, repo, n)
	must(err)
	must(c.DeleteComment(ctx, repo, cm.ID))

	child, err := c.CreateIssue(ctx, repo, github.NewIssue{Title: "Sub-work: greeter", Body: "Part of #1.", Labels: []string{"cogworks:sub"}})
	must(err)
	must(c.AddSubIssue(ctx, repo, n, child.ID))
	_, err = c.ListSubIssues(ctx, repo, n)
	must(err)
	closed, err := c.CloseObsoleteSubIssue(ctx, repo, n, child.Number)
	must(err)
	require.True(t, closed, "closed as not planned")

	head, err := c.GetBranchHead(ctx, repo, "main")
	must(err)
	_, err = c.GetBranchSHA(ctx, repo, "main")
	must(err)
	_, err = c.GetCommit(ctx, repo, head.SHA)
	must(err)
	_, err = c.GetTree(ctx, repo, head.TreeSHA, true)
	must(err)
	content := "package greet\n\nfunc Hello() string { return \"hello\" }\n"
	tree, err := c.CreateTree(ctx, repo, head.TreeSHA, []github.TreeEntry{{Path: "greet/greet.go", Content: &content}})
	must(err)
	commit, err := c.CreateCommit(ctx, repo, "Add a greeter", tree, []string{head.SHA})
	must(err)
	const branch = "cogworks/1/code"
	must(c.CreateBranch(ctx, repo, branch, head.SHA))
	require.ErrorIs(t, c.CreateBranch(ctx, repo, branch, head.SHA), github.ErrUnprocessable)
	must(c.UpdateBranch(ctx, repo, branch, commit.SHA, false))
	_, err = c.GetFile(ctx, repo, "greet/greet.go", branch)
	must(err)
	_, err = c.GetFile(ctx, repo, "missing.go", branch)
	require.ErrorIs(t, err, github.ErrNotFound)
	must(c.PutFile(ctx, repo, github.FileCommit{Path: "docs/spec.md", Branch: branch, Message: "Add the spec", Content: []byte("# Spec\n")}))
	must(c.PutFile(ctx, repo, github.FileCommit{Path: "docs/spec.md", Branch: branch, Message: "Edit the spec", Content: []byte("# Spec\n\nMore.\n")}))
	rc, err := c.Tarball(ctx, repo, branch)
	must(err)
	_, _ = io.Copy(io.Discard, rc)
	must(rc.Close())

	pr, err := c.CreatePull(ctx, repo, github.NewPull{Title: "Add a greeter", Body: "Closes #1.", Head: branch, Base: "main", Draft: true})
	must(err)
	_, err = c.ListPulls(ctx, repo, github.PullFilter{State: "open", Head: branch, Base: "main"})
	must(err)
	_, err = c.GetPull(ctx, repo, pr.Number)
	must(err)
	files, err := c.ListPullFiles(ctx, repo, pr.Number)
	must(err)
	require.NotEmpty(t, files)
	_, err = c.CreateReview(ctx, repo, pr.Number, github.NewReview{Event: github.ReviewComment, Body: "Looks fine.", CommitID: pr.HeadSHA,
		Comments: []github.InlineComment{{Path: "greet/greet.go", Line: 3, Body: "Consider a doc comment."}}})
	must(err)
	_, err = c.ListReviews(ctx, repo, pr.Number)
	must(err)
	inline, err := c.ListReviewComments(ctx, repo, pr.Number)
	must(err)
	require.Len(t, inline, 1)
	_, err = c.ReplyToReviewComment(ctx, repo, pr.Number, inline[0].ID, "Added one.")
	must(err)

	// CI feedback: a failed run on the PR's head, read as the revision
	// reads it; then the branch brought up to date with a moved main.
	ids, err := env.Sim.SeedWorkflowRun(repo.String(), githubsim.CIRun{Branch: branch, Jobs: []githubsim.CIJob{{
		Name: "test", Conclusion: "failure", RunnerName: "GitHub Actions 2", Log: "--- FAIL: TestHello\n",
		Steps:       []githubsim.CIStep{{Name: "Run go test", Conclusion: "failure"}},
		Annotations: []githubsim.CIAnnotation{{Path: "greet/greet.go", Line: 3, Message: "TestHello failed"}},
	}}})
	must(err)
	head, err = c.GetBranchHead(ctx, repo, branch)
	must(err)
	runs, err := c.ListCheckRuns(ctx, repo, head.SHA)
	must(err)
	require.Len(t, runs, 1)
	_, err = c.ListCheckRunAnnotations(ctx, repo, runs[0].ID)
	must(err)
	wruns, err := c.ListWorkflowRuns(ctx, repo, head.SHA)
	must(err)
	require.Len(t, wruns, 1)
	jobs, err := c.ListRunJobs(ctx, repo, ids.Run)
	must(err)
	require.Len(t, jobs, 1)
	log, err := c.JobLog(ctx, repo, jobs[0].ID)
	must(err)
	require.Contains(t, log, "FAIL: TestHello")
	// The one re-run of an infrastructure failure.
	must(c.RerunFailedJobs(ctx, repo, ids.Run))
	require.ErrorIs(t, c.UpdatePullBranch(ctx, repo, pr.Number, ""), github.ErrBranchUpToDate)
	env.Sim.SeedFiles(repo.String(), "main", map[string]string{"NEWS.md": "news\n"})
	must(c.UpdatePullBranch(ctx, repo, pr.Number, head.SHA))
	must(c.RetargetPull(ctx, repo, pr.Number, "main"))
	mainHead, err := c.GetBranchHead(ctx, repo, "main")
	must(err)
	prHead, err := c.GetBranchHead(ctx, repo, branch)
	must(err)
	cmp, err := c.Compare(ctx, repo, mainHead.SHA, prHead.SHA)
	must(err)
	require.NotEmpty(t, cmp.MergeBase)
	require.NotEmpty(t, cmp.Files)
}

// TestAdapterTrafficConformsToGitHub runs every adapter method against the
// simulator and checks each request the adapter sent, and each answer the
// simulator gave, against GitHub's description.
func TestAdapterTrafficConformsToGitHub(t *testing.T) {
	d := description(t)
	env := testenv.New(t, githubsim.WithResponseLog())
	exerciseAdapter(t, env)
	logs := env.Sim.Requests()
	require.NotEmpty(t, logs)
	require.NoError(t, d.CheckLog(logs))
}
