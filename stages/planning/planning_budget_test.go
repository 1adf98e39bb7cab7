package planning_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestPlanningListsSubWorkItemIssuesOnce files a three-item plan, then
// re-runs it with the snapshot lost: each time the repository's
// sub-work-item issues are listed once for all the items' marker searches
// (it was once per item), and the re-run still finds every issue.
func TestPlanningListsSubWorkItemIssuesOnce(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.AddJSON(t, prompts.Planning, stagetest.GoodPlan)
	listings := func() int {
		n := 0
		for _, r := range f.Env.Sim.Requests() {
			if r.Method == "GET" && strings.HasSuffix(r.Path, "/issues") && strings.Contains(r.Query, "sub-work-item") {
				n++
			}
		}
		return n
	}
	f.Env.Sim.ResetRequests()
	snap := f.PlanningSnapshot(t)
	_, err := f.Run(t, pipeline.StagePlanning, snap)
	require.NoError(t, err)
	require.Len(t, snap.SubWorkItems, 3)
	assert.Equal(t, 1, listings(), "first run")

	again := f.PlanningSnapshot(t)
	f.Env.Sim.ResetRequests()
	_, err = f.Run(t, pipeline.StagePlanning, again)
	require.NoError(t, err)
	assert.Equal(t, snap.SubWorkItems, again.SubWorkItems, "the issues are found, not filed again")
	assert.Equal(t, 1, listings(), "re-run")
}
