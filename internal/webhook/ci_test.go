package webhook_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/webhook"
)

// ciPayload is the shape GitHub sends (trimmed to what is read), with the
// branch on the check suite for a check_run as GitHub places it.
func ciPayload(event, action, conclusion, branch string, prs ...int) []byte {
	list := "["
	for i, n := range prs {
		if i > 0 {
			list += ","
		}
		list += fmt.Sprintf(`{"number":%d,"head":{"ref":%q,"sha":"abc"},"base":{"ref":"main"}}`, n, branch)
	}
	list += "]"
	body := fmt.Sprintf(`{"id":9,"name":"test","head_sha":"abc","head_branch":%q,"status":"completed","conclusion":%q,"pull_requests":%s}`,
		branch, conclusion, list)
	if event == "check_run" {
		body = fmt.Sprintf(`{"id":9,"name":"test","head_sha":"abc","status":"completed","conclusion":%q,"pull_requests":%s,"check_suite":{"id":3,"head_branch":%q}}`,
			conclusion, list, branch)
	}
	return []byte(fmt.Sprintf(`{"action":%q,%q:%s,"repository":{"full_name":"acme/widgets"},"sender":{"login":"octocat","type":"User"}}`, action, event, body))
}

func TestCITrigger(t *testing.T) {
	const branch = "cogworks/1/swi-1"
	tests := []struct {
		name, event, action, conclusion, branch string
		prs                                     []int
		wantPR                                  int
		ignore                                  string
	}{
		{"failed check run", "check_run", "completed", "failure", branch, []int{2}, 2, ""},
		{"failed check suite", "check_suite", "completed", "failure", branch, []int{2}, 2, ""},
		{"timed-out workflow run", "workflow_run", "completed", "timed_out", branch, []int{2}, 2, ""},
		{"green", "workflow_run", "completed", "success", branch, []int{2}, 0, "nothing to fix"},
		{"cancelled: the infrastructure's, re-run once", "workflow_run", "completed", "cancelled", branch, []int{2}, 2, ""},
		{"stale", "check_suite", "completed", "stale", branch, []int{2}, 0, "infrastructure"},
		{"startup failure", "check_suite", "completed", "startup_failure", branch, []int{2}, 0, "infrastructure"},
		{"still running", "check_run", "created", "", branch, []int{2}, 0, "only a completed run"},
		{"someone else's branch", "check_run", "completed", "failure", "feature", []int{2}, 0, "not a CogWorks branch"},
		{"a fork's pull request (GitHub lists none)", "workflow_run", "completed", "failure", branch, nil, 0, "names no pull request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := webhook.ParseCI(tt.event, ciPayload(tt.event, tt.action, tt.conclusion, tt.branch, tt.prs...))
			require.NoError(t, err)
			pr, head, ignore := res.CITrigger()
			assert.Equal(t, tt.wantPR, pr)
			if tt.ignore == "" {
				assert.Empty(t, ignore)
				assert.Equal(t, "abc", head)
				return
			}
			assert.Contains(t, ignore, tt.ignore)
		})
	}
}

func TestParseCIRefusesOtherEvents(t *testing.T) {
	_, err := webhook.ParseCI("issues", []byte(`{"action":"opened"}`))
	require.Error(t, err)
	_, err = webhook.ParseCI("check_run", []byte(`{"action":"completed"}`))
	require.ErrorContains(t, err, "has no check_run")
}
