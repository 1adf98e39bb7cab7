package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
)

// TestPushDeliveriesWakeTheRepositoryOnlyWhenMainMoves: a push that
// moved the default branch is one job that wakes the repository's open
// work items, keyed apart from every work item (and from a /cogworks fix
// job's Issue 0); a push to another branch — CogWorks's own cogworks/…
// pushes, sent by the bot, included — a tag or a deleted branch is
// ignored from the payload alone (parseWork makes no request). The
// payloads are the simulator's, held to GitHub's push schema by
// TestSimPushPayloadConformsToGitHub.
func TestPushDeliveriesWakeTheRepositoryOnlyWhenMainMoves(t *testing.T) {
	sim := githubsim.New()
	sim.CreateRepo("acme", "widgets", "main")
	before := sim.SeedFiles("acme/widgets", "main", map[string]string{"README.md": "# widgets\n"})
	sim.SeedFiles("acme/widgets", "main", map[string]string{"NEWS.md": "news\n"})
	sim.SeedFiles("acme/widgets", "cogworks/4/swi-1", map[string]string{"a.go": "package a\n"})
	push := func(branch, pusher string) []byte {
		ev, err := sim.PushEvent("acme/widgets", branch, before, pusher, 7)
		require.NoError(t, err)
		return ev.Body
	}
	main := push("main", "alice")
	tests := []struct {
		name    string
		body    []byte
		ignored string
	}{
		{"main moved", main, ""},
		{"main moved by a bot (a merge queue)", push("main", "cogworks[bot]"), ""},
		{"CogWorks's own branch", push("cogworks/4/swi-1", "cogworks[bot]"), "not to the default branch main"},
		{"a tag", []byte(strings.Replace(string(main), `"ref":"refs/heads/main"`, `"ref":"refs/tags/v1"`, 1)), "not to a branch"},
		{"main deleted", []byte(strings.Replace(string(main), `"deleted":false`, `"deleted":true`, 1)), "deleted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, checkShape("push", tt.body))
			job, ignore, err := parseWork("push", tt.body)
			require.NoError(t, err)
			if tt.ignored != "" {
				assert.Contains(t, ignore, tt.ignored)
				assert.False(t, job.Push)
				return
			}
			require.Empty(t, ignore)
			assert.True(t, job.Push)
			assert.Equal(t, "acme/widgets", job.Repo.String())
			assert.Equal(t, int64(7), job.Installation)
			assert.Zero(t, job.Issue)
			assert.NotEqual(t, Job{Repo: job.Repo, Installation: 7}.itemKey(), job.itemKey(), "a push is queued apart from a /cogworks fix job")
		})
	}
	for _, other := range []string{"issues", "pull_request", "check_run"} {
		assert.Error(t, checkShape(other, main), "a push body is no %s delivery", other)
	}
}

// TestReviewCIAndPushDeliveriesPassTheHeaderCheck: the header check lets
// through every event parseWork turns into a job — before, it named only
// issues, issue_comment and pull_request, so a review, a failed CI run or
// a push never reached its job (400 before the body was read).
func TestReviewCIAndPushDeliveriesPassTheHeaderCheck(t *testing.T) {
	sim := githubsim.New()
	sim.CreateRepo("acme", "widgets", "main")
	before := sim.SeedFiles("acme/widgets", "main", map[string]string{"README.md": "# widgets\n"})
	sim.SeedFiles("acme/widgets", "main", map[string]string{"NEWS.md": "news\n"})
	push, err := sim.PushEvent("acme/widgets", "main", before, "alice", 7)
	require.NoError(t, err)
	repo := `"repository":{"full_name":"acme/widgets"},"installation":{"id":7}`
	r := &fakeRunner{}
	s := newTestServer(t, r, nil)
	for i, d := range []struct {
		event string
		body  []byte
	}{
		{"push", push.Body},
		{"pull_request_review", []byte(`{"action":"submitted","review":{"id":5,"state":"changes_requested","body":"x","user":{"login":"alice","type":"User"}},"pull_request":{"number":9,"head":{"ref":"cogworks/4/swi-1"},"user":{"login":"cogworks[bot]"}},` + repo + `,"sender":{"login":"alice","type":"User"}}`)},
		{"check_run", []byte(`{"action":"completed","check_run":{"id":1,"name":"test","head_sha":"abc","status":"completed","conclusion":"failure","check_suite":{"head_branch":"cogworks/5/swi-1"},"pull_requests":[{"number":10,"head":{"ref":"cogworks/5/swi-1"}}]},` + repo + `,"sender":{"login":"cogworks[bot]","type":"Bot"}}`)},
	} {
		rec := deliver(t, s.Handler(), d.event, fmt.Sprintf("d-%d", i), d.body, Sign(testSecret, d.body))
		assert.Equal(t, http.StatusAccepted, rec.Code, "%s: %s", d.event, rec.Body.String())
		assert.NotContains(t, rec.Body.String(), "ignored", d.event)
	}
	// Three items (the repository's wake-up, #4, #5): three jobs, none
	// folded into another.
	assert.Eventually(t, func() bool { return r.count() == 3 }, 5*time.Second, 10*time.Millisecond)
}
