package githubsim

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkflowRunIsReadableAsGitHubServesIt(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"a.go": "package a\n"})
	f.srv.SeedFiles(full, "feature", map[string]string{"a.go": "package a\n\nvar X = 1\n"})
	ids, err := f.srv.SeedWorkflowRun(full, CIRun{Branch: "feature", Jobs: []CIJob{
		{Name: "lint", Conclusion: "success", RunnerName: "r1"},
		{Name: "test", Conclusion: "failure", RunnerName: "r2", Log: "--- FAIL: TestX\n",
			Steps:       []CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "go test", Conclusion: "failure"}},
			Annotations: []CIAnnotation{{Path: "a.go", Line: 3, Message: "want 2"}}},
	}})
	require.NoError(t, err)

	runs, _, err := f.client.Checks.ListCheckRunsForRef(ctx(t), owner, name, "feature", nil)
	require.NoError(t, err)
	require.Equal(t, 2, runs.GetTotal())
	assert.Equal(t, "failure", runs.CheckRuns[1].GetConclusion())
	assert.Equal(t, ids.Jobs[1], runs.CheckRuns[1].GetID(), "a job's check run has the job's id")
	anns, _, err := f.client.Checks.ListCheckRunAnnotations(ctx(t), owner, name, ids.Jobs[1], nil)
	require.NoError(t, err)
	require.Len(t, anns, 1)
	assert.Equal(t, "want 2", anns[0].GetMessage())

	wr, _, err := f.client.Actions.ListRepositoryWorkflowRuns(ctx(t), owner, name, &github.ListWorkflowRunsOptions{HeadSHA: runs.CheckRuns[0].GetHeadSHA()})
	require.NoError(t, err)
	require.Len(t, wr.WorkflowRuns, 1)
	assert.Equal(t, "failure", wr.WorkflowRuns[0].GetConclusion())

	// The log endpoint redirects; the download serves the text.
	u, resp, err := f.client.Actions.GetWorkflowJobLogs(ctx(t), owner, name, ids.Jobs[1], 0)
	require.NoError(t, err)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	got, err := http.Get(u.String())
	require.NoError(t, err)
	defer got.Body.Close()
	var text [64]byte
	n, _ := got.Body.Read(text[:])
	assert.Equal(t, "--- FAIL: TestX\n", string(text[:n]))

	// A re-run queues the failed job again, in a new attempt.
	_, err = f.client.Actions.RerunFailedJobsByID(ctx(t), owner, name, ids.Run)
	require.NoError(t, err)
	jobs, _, err := f.client.Actions.ListWorkflowJobs(ctx(t), owner, name, ids.Run, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"completed", "queued"}, []string{jobs.Jobs[0].GetStatus(), jobs.Jobs[1].GetStatus()})
	assert.Equal(t, int64(2), jobs.Jobs[1].GetRunAttempt())
	require.NoError(t, f.srv.SetJob(full, ids.Jobs[1], CIJob{Name: "test", Conclusion: "success", RunnerName: "r3"}))

	events, err := f.srv.WorkflowRunEvents(full, ids.Run, 7)
	require.NoError(t, err)
	var names []string
	for _, ev := range events {
		names = append(names, ev.Event)
	}
	assert.Equal(t, []string{"check_run", "check_run", "check_suite", "workflow_run"}, names)
	var wrun struct {
		WorkflowRun struct{ Conclusion, HeadBranch string } `json:"workflow_run"`
	}
	require.NoError(t, json.Unmarshal(events[3].Body, &wrun))
	assert.Equal(t, "success", wrun.WorkflowRun.Conclusion)
}

func TestUpdateBranchMergesTheBaseAndKeepsTheBranchCommits(t *testing.T) {
	f := setup(t)
	f.srv.SeedFiles(full, "main", map[string]string{"a.go": "package a\n", "b.go": "package a\n"})
	f.srv.SeedFiles(full, "feature", map[string]string{"a.go": "package a\n\nvar X = 1\n"})
	pr, _, err := f.client.PullRequests.Create(ctx(t), owner, name, &github.NewPullRequest{Title: github.String("t"), Head: github.String("feature"), Base: github.String("main")})
	require.NoError(t, err)
	_, _, err = f.client.PullRequests.UpdateBranch(ctx(t), owner, name, pr.GetNumber(), nil)
	var api *github.ErrorResponse
	require.ErrorAs(t, err, &api, "nothing new on main")
	assert.Equal(t, http.StatusUnprocessableEntity, api.Response.StatusCode)

	f.srv.SeedFiles(full, "main", map[string]string{"b.go": "package a\n\nvar Y = 2\n"})
	before, _, err := f.client.Repositories.GetBranch(ctx(t), owner, name, "feature", 0)
	require.NoError(t, err)
	_, _, err = f.client.PullRequests.UpdateBranch(ctx(t), owner, name, pr.GetNumber(), nil)
	var accepted *github.AcceptedError
	require.ErrorAs(t, err, &accepted, "202")
	after, _, err := f.client.Repositories.GetBranch(ctx(t), owner, name, "feature", 0)
	require.NoError(t, err)
	merge, _, err := f.client.Git.GetCommit(ctx(t), owner, name, after.GetCommit().GetSHA())
	require.NoError(t, err)
	require.Len(t, merge.Parents, 2)
	assert.Equal(t, before.GetCommit().GetSHA(), merge.Parents[0].GetSHA(), "a merge on top of the head: no commit lost")
	for path, want := range map[string]string{"a.go": "var X = 1", "b.go": "var Y = 2"} {
		fc, _, _, err := f.client.Repositories.GetContents(ctx(t), owner, name, path, &github.RepositoryContentGetOptions{Ref: "feature"})
		require.NoError(t, err)
		content, err := fc.GetContent()
		require.NoError(t, err)
		assert.Contains(t, content, want)
	}

	// Both sides change a.go: a conflict, and the branch is untouched.
	f.srv.SeedFiles(full, "main", map[string]string{"a.go": "package a\n\nvar X = 3\n"})
	_, _, err = f.client.PullRequests.UpdateBranch(ctx(t), owner, name, pr.GetNumber(), nil)
	require.ErrorAs(t, err, &api)
	assert.Equal(t, http.StatusUnprocessableEntity, api.Response.StatusCode)
	assert.Contains(t, api.Message, "merge conflict")
	still, _, err := f.client.Repositories.GetBranch(ctx(t), owner, name, "feature", 0)
	require.NoError(t, err)
	assert.Equal(t, after.GetCommit().GetSHA(), still.GetCommit().GetSHA())
}
