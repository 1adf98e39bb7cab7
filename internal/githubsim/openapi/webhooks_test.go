package openapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
)

// TestSimWebhookPayloadsConformToGitHub: the check_run, check_suite and
// workflow_run deliveries the simulator builds for a completed run (a
// failed job on a PR's branch, a job no runner took, a green one) are
// valid against the payload schemas of GitHub's description.
func TestSimWebhookPayloadsConformToGitHub(t *testing.T) {
	d := description(t)
	assert.Equal(t, githubsim.WebhookPayloads(), d.Webhooks, "every payload the simulator builds is in the trimmed description")
	p := newProbeSim(t)
	ids, err := p.sim.SeedWorkflowRun("acme/widgets", githubsim.CIRun{Branch: "feature", Jobs: []githubsim.CIJob{
		{Name: "lint", Conclusion: "success", RunnerName: "r1", Steps: []githubsim.CIStep{{Name: "Lint", Conclusion: "success"}}},
		{Name: "test", Conclusion: "failure", RunnerName: "r2", Title: "2 tests failed", Summary: "TestX", Log: "--- FAIL: TestX\n",
			Annotations: []githubsim.CIAnnotation{{Path: "a.go", Line: 1, Message: "want 2"}}},
		{Name: "e2e", Conclusion: "failure"},
	}})
	require.NoError(t, err)
	events, err := p.sim.WorkflowRunEvents("acme/widgets", ids.Run, 7)
	require.NoError(t, err)
	require.Len(t, events, 5)
	for _, ev := range events {
		name := strings.ReplaceAll(ev.Event, "_", "-") + "-" + ev.Action
		assert.NoError(t, d.CheckWebhook(name, ev.Body), "%s", ev.Body)
	}
	assert.Error(t, d.CheckWebhook("check-run-completed", []byte(`{"action":"completed","check_run":{"id":"x"}}`)), "a bad payload is caught")
	bad := strings.Replace(string(events[1].Body), `"conclusion":"failure"`, `"conclusion":"broken"`, 1)
	require.NotEqual(t, string(events[1].Body), bad)
	assert.Error(t, d.CheckWebhook("check-run-completed", []byte(bad)), "a conclusion GitHub never sends is caught")
}

// TestSimPushPayloadConformsToGitHub: the push delivery the simulator
// builds when main moves (two commits: one adding a file, one changing
// and removing others) is valid against the push payload schema of
// GitHub's description, and lists the commits since before with their
// files.
func TestSimPushPayloadConformsToGitHub(t *testing.T) {
	d := description(t)
	p := newProbeSim(t)
	before := p.sim.SeedFiles("acme/widgets", "main", map[string]string{"NEWS.md": "news\n"})
	p.sim.SeedFiles("acme/widgets", "main", map[string]string{"README.md": "# widgets, moved\n", "b.go": "package b\n"})
	ev, err := p.sim.PushEvent("acme/widgets", "main", before, "alice", 7)
	require.NoError(t, err)
	assert.Equal(t, "push", ev.Event)
	require.NoError(t, d.CheckWebhook("push", ev.Body), "%s", ev.Body)
	var got struct {
		Ref     string `json:"ref"`
		Before  string `json:"before"`
		Commits []struct {
			Added    []string `json:"added"`
			Modified []string `json:"modified"`
		} `json:"commits"`
		Repository struct {
			DefaultBranch string `json:"default_branch"`
		} `json:"repository"`
	}
	require.NoError(t, json.Unmarshal(ev.Body, &got))
	assert.Equal(t, "refs/heads/main", got.Ref)
	assert.Equal(t, before, got.Before)
	assert.Equal(t, "main", got.Repository.DefaultBranch)
	require.Len(t, got.Commits, 1, "only the commits since before")
	assert.Equal(t, []string{"b.go"}, got.Commits[0].Added)
	assert.Equal(t, []string{"README.md"}, got.Commits[0].Modified)
	bad := strings.Replace(string(ev.Body), `"ref":"refs/heads/main"`, `"ref":7`, 1)
	require.NotEqual(t, string(ev.Body), bad)
	assert.Error(t, d.CheckWebhook("push", []byte(bad)), "a ref GitHub never sends is caught")
}

// TestSimStartupFailureConformsToGitHub: a workflow run that could not
// start (GitHub's startup_failure, an invalid workflow file) has no job;
// the simulator answers the workflow-runs list, the check-suites list
// and the check_suite and workflow_run deliveries with that conclusion,
// each valid against GitHub's description, and lists no check run for
// it.
func TestSimStartupFailureConformsToGitHub(t *testing.T) {
	d := description(t)
	p := newProbeSim(t)
	ids, err := p.sim.SeedWorkflowRun("acme/widgets", githubsim.CIRun{Branch: "feature", Conclusion: "startup_failure"})
	require.NoError(t, err)
	events, err := p.sim.WorkflowRunEvents("acme/widgets", ids.Run, 7)
	require.NoError(t, err)
	require.Len(t, events, 2, "no job, no check_run delivery")
	for _, ev := range events {
		assert.Contains(t, string(ev.Body), `"conclusion":"startup_failure"`)
		assert.NoError(t, d.CheckWebhook(strings.ReplaceAll(ev.Event, "_", "-")+"-"+ev.Action, ev.Body), "%s", ev.Body)
	}
	var feature struct{ Commit struct{ SHA string } }
	p.do(t, "GET", "/repos/acme/widgets/branches/feature", "", &feature)
	for _, path := range []string{"/repos/acme/widgets/actions/runs?head_sha=" + feature.Commit.SHA,
		"/repos/acme/widgets/commits/feature/check-suites", "/repos/acme/widgets/commits/feature/check-runs"} {
		rec := p.do(t, "GET", path, "", nil)
		require.Equal(t, 200, rec.Code, "%s: %s", path, rec.Body)
		op, ok := d.Match("GET", strings.Split(path, "?")[0])
		require.True(t, ok, path)
		assert.NoError(t, d.CheckResponse(op, rec.Code, rec.Body.Bytes()), path)
		if strings.HasSuffix(path, "check-runs") {
			assert.NotContains(t, rec.Body.String(), fmt.Sprintf(`"check_suite":{"id":%d}`, ids.Suite), "a run that never started has no check run")
			continue
		}
		assert.Contains(t, rec.Body.String(), `"conclusion":"startup_failure"`, path)
	}
}
