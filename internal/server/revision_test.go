package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReviewDeliveriesBecomeRevisionJobs: a review (its body alone is
// feedback too, on the specification PR as on any), an inline comment
// that opens a thread and a /cogworks fix comment on a CogWorks PR become
// revision jobs (the fix's work item is found from the PR later); an
// approval, a reply in a thread and another PR's review are ignored, and
// review jobs of one item merge their PRs.
func TestReviewDeliveriesBecomeRevisionJobs(t *testing.T) {
	pr := `"pull_request":{"number":9,"head":{"ref":"cogworks/4/swi-1"},"user":{"login":"cogworks[bot]"}}`
	repo := `"repository":{"full_name":"acme/vehicle"},"sender":{"login":"alice","type":"User"}`
	tests := []struct {
		name, event, body string
		issue             int
		ignored           bool
	}{
		{"changes requested", "pull_request_review", `{"action":"submitted",` + pr + `,"review":{"id":1,"state":"changes_requested","user":{"login":"alice","type":"User"}},` + repo + `}`, 4, false},
		{"a body-only comment review of the spec PR", "pull_request_review", `{"action":"submitted","pull_request":{"number":9,"head":{"ref":"cogworks/4/spec"},"user":{"login":"cogworks[bot]"}},"review":{"id":2,"state":"commented","body":"Say when it resets.","user":{"login":"alice","type":"User"}},` + repo + `}`, 4, false},
		{"an approval", "pull_request_review", `{"action":"submitted",` + pr + `,"review":{"id":1,"state":"approved","user":{"login":"alice","type":"User"}},` + repo + `}`, 0, true},
		{"an inline comment", "pull_request_review_comment", `{"action":"created",` + pr + `,"comment":{"id":5,"body":"x","user":{"login":"alice","type":"User"}},` + repo + `}`, 4, false},
		{"a reply in a thread", "pull_request_review_comment", `{"action":"created",` + pr + `,"comment":{"id":6,"in_reply_to_id":5,"body":"x","user":{"login":"alice","type":"User"}},` + repo + `}`, 0, true},
		{"another PR", "pull_request_review", `{"action":"submitted","pull_request":{"number":9,"head":{"ref":"feature"},"user":{"login":"bob"}},"review":{"id":1,"state":"commented","user":{"login":"alice","type":"User"}},` + repo + `}`, 0, true},
		{"/cogworks fix on a PR", "issue_comment", `{"action":"created","issue":{"number":9,"pull_request":{}},"comment":{"id":7,"body":"/cogworks fix","user":{"login":"alice","type":"User"}},` + repo + `}`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, checkShape(tt.event, []byte(tt.body)))
			job, ignore, err := parseWork(tt.event, []byte(tt.body))
			require.NoError(t, err)
			if tt.ignored {
				assert.NotEmpty(t, ignore)
				return
			}
			require.Empty(t, ignore)
			assert.Equal(t, tt.issue, job.Issue)
			assert.Equal(t, []int{9}, job.Revise)
			assert.True(t, job.RevisionOnly)
		})
	}

	into := Job{Issue: 4, Revise: []int{9}, RevisionOnly: true}
	mergeJob(&into, Job{Issue: 4, Revise: []int{11}, RevisionOnly: true})
	mergeJob(&into, Job{Issue: 4, Revise: []int{9}, RevisionOnly: true})
	assert.Equal(t, []int{9, 11}, into.Revise)
	assert.True(t, into.RevisionOnly)
	mergeJob(&into, Job{Issue: 4, CheckMerges: true})
	assert.False(t, into.RevisionOnly, "a pipeline event merged in steps the item too")
}
