package integration_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestIntegrationOfAFreshPRSkipsReadsItCanKnow checks that integration
// does not ask GitHub what the PR it has just opened tells it: a new PR has
// no reviews to search for the bot's, and its head commit (which the
// review is anchored on) comes with the PR; the sub-work-item's issue,
// read at the start of the step, gives the labels its status change keeps.
func TestIntegrationOfAFreshPRSkipsReadsItCanKnow(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	f.ScriptReviews(t, []review.Finding{stagetest.WarningFinding()}, nil, nil)
	_, err := f.Run(t, pipeline.StageReview)
	require.NoError(t, err)
	f.Env.Sim.ResetRequests()
	_, err = f.Run(t, pipeline.StageIntegration)
	require.NoError(t, err)

	swiIssue := fmt.Sprintf("/issues/%d", f.Snap.SubWorkItems[0].Issue)
	reads := 0
	for _, r := range f.Env.Sim.Requests() {
		if r.Method == "GET" && strings.HasSuffix(r.Path, swiIssue) {
			reads++
		}
	}
	assert.Equal(t, 1, reads, "the sub-work-item's issue is read once per step")

	pr := stagetest.OnlyPull(t, f)
	require.Len(t, pr.Reviews, 1, "the finding is posted as a review")
	for _, r := range f.Env.Sim.Requests() {
		assert.False(t, r.Method == "GET" && strings.HasSuffix(r.Path, "/reviews"), "a new PR's reviews were listed: %s", r.Path)
		assert.False(t, r.Method == "GET" && strings.Contains(r.Path, "/git/ref/"), "the head was read although the PR carries it: %s", r.Path)
	}
}
