package openapi_test

import (
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
