package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCIDeliveriesBecomeCIRevisionJobs: a completed, failed check run,
// check suite or workflow run on a CogWorks PR's head is a CI revision
// job of the branch's work item, even when the bot sent it (CI on the
// bot's own push); anything else is ignored without a request.
func TestCIDeliveriesBecomeCIRevisionJobs(t *testing.T) {
	repo := `"repository":{"full_name":"acme/vehicle"},"sender":{"login":"cogworks[bot]","type":"Bot"}`
	prs := `"pull_requests":[{"number":9,"head":{"ref":"cogworks/4/swi-1"}}]`
	run := func(conclusion, branch string) string {
		return `{"action":"completed","check_run":{"id":1,"name":"test","head_sha":"abc","status":"completed","conclusion":"` + conclusion +
			`","check_suite":{"head_branch":"` + branch + `"},` + prs + `},` + repo + `}`
	}
	tests := []struct {
		name, event, body string
		ignored           bool
	}{
		{"a failed check run sent by the bot", "check_run", run("failure", "cogworks/4/swi-1"), false},
		{"a timed-out check run", "check_run", run("timed_out", "cogworks/4/swi-1"), false},
		{"a failed check suite", "check_suite", `{"action":"completed","check_suite":{"id":2,"head_sha":"abc","head_branch":"cogworks/4/swi-1","status":"completed","conclusion":"failure",` + prs + `},` + repo + `}`, false},
		{"a failed workflow run", "workflow_run", `{"action":"completed","workflow_run":{"id":3,"name":"ci","head_sha":"abc","head_branch":"cogworks/4/swi-1","status":"completed","conclusion":"failure",` + prs + `},` + repo + `}`, false},
		{"a cancelled run (the infrastructure's: re-run once)", "check_run", run("cancelled", "cogworks/4/swi-1"), false},
		{"a stale run", "check_run", run("stale", "cogworks/4/swi-1"), true},
		{"a passing run", "check_run", run("success", "cogworks/4/swi-1"), true},
		{"another branch", "check_run", run("failure", "feature"), true},
		{"a run still going", "workflow_run", `{"action":"requested","workflow_run":{"id":3,"head_sha":"abc","head_branch":"cogworks/4/swi-1",` + prs + `},` + repo + `}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, checkShape(tt.event, []byte(tt.body)))
			job, ignore, err := parseWork(tt.event, []byte(tt.body))
			require.NoError(t, err)
			if tt.ignored {
				assert.NotEmpty(t, ignore)
				assert.Empty(t, job.CI)
				return
			}
			require.Empty(t, ignore)
			assert.Equal(t, 4, job.Issue)
			assert.Equal(t, []CIFailure{{PR: 9, Head: "abc"}}, job.CI)
			assert.True(t, job.RevisionOnly)
		})
	}
	assert.Error(t, checkShape("check_suite", []byte(`{"action":"created","issue":{"number":1},"comment":{"id":1},`+repo+`}`)),
		"a comment is no check suite")

	into := Job{Issue: 4, CI: []CIFailure{{PR: 9, Head: "abc"}}, RevisionOnly: true}
	mergeJob(&into, Job{Issue: 4, CI: []CIFailure{{PR: 9, Head: "abc"}}, RevisionOnly: true})
	mergeJob(&into, Job{Issue: 4, Revise: []int{9}, RevisionOnly: true})
	assert.Equal(t, []CIFailure{{PR: 9, Head: "abc"}}, into.CI, "the suite's, the run's and the check's deliveries make one cycle")
	assert.True(t, into.RevisionOnly)
}

// TestMergedCogWorksPRDeliveryRestacks: the merge of a CogWorks PR steps
// its work item and restacks the item's other PRs; a PR closed unmerged
// only steps it.
func TestMergedCogWorksPRDeliveryRestacks(t *testing.T) {
	repo := `"repository":{"full_name":"acme/vehicle"},"sender":{"login":"alice","type":"User"}`
	for _, tt := range []struct {
		name   string
		merged bool
	}{{"merged", true}, {"closed unmerged", false}} {
		t.Run(tt.name, func(t *testing.T) {
			merged := "false"
			if tt.merged {
				merged = "true"
			}
			body := `{"action":"closed","pull_request":{"number":9,"merged":` + merged + `,"head":{"ref":"cogworks/4/swi-1"},"user":{"login":"cogworks[bot]"}},` + repo + `}`
			require.NoError(t, checkShape("pull_request", []byte(body)))
			job, ignore, err := parseWork("pull_request", []byte(body))
			require.NoError(t, err)
			require.Empty(t, ignore)
			assert.Equal(t, 4, job.Issue)
			assert.True(t, job.CheckMerges)
			assert.Equal(t, tt.merged, job.Restack)
		})
	}
	into := Job{Issue: 4}
	mergeJob(&into, Job{Issue: 4, Restack: true})
	mergeJob(&into, Job{Issue: 4})
	assert.True(t, into.Restack, "a later delivery keeps the restack")
}
