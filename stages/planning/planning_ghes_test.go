package planning_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/githubsim/openapi"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// GitHub Enterprise Server 3.17–3.19 has no sub-issues API (404): the
// sub-work-items are linked by their body markers and a task list on the
// parent instead, and a re-run writes nothing again.
func TestPlanningOnEnterpriseServerWithoutSubIssues(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil, githubsim.WithEnterprise("3.17.0"))
	f.AddJSON(t, prompts.Planning, stagetest.GoodPlan)
	snap := f.PlanningSnapshot(t)
	_, err := f.Run(t, pipeline.StagePlanning, snap)
	require.NoError(t, err)

	recs := snap.SubWorkItems
	require.Len(t, recs, 3)
	var list string
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.Issue) {
		if bytes.Contains([]byte(c.Body), []byte("Sub-work-items")) {
			list = c.Body
		}
	}
	require.NotEmpty(t, list, "a task list on the parent")
	for _, r := range recs {
		assert.Contains(t, list, fmt.Sprintf("- [ ] #%d\n", r.Issue))
		is, ok := f.Env.Sim.Issue(testenv.Repo.String(), r.Issue)
		require.True(t, ok)
		assert.Contains(t, is.Body, fmt.Sprintf("<!-- cogworks:swi=%d/%s -->", f.Issue, r.ID))
	}

	// Checked against GHES 3.17's own OpenAPI description: the planning
	// run tried what 3.17 lacks only to meet its 404, and everything that
	// succeeded is an operation 3.17 has.
	d, err := openapi.Default()
	require.NoError(t, err)
	lacks := d.GHESLacks["3.17"]
	require.NotEmpty(t, lacks)
	tried := 0
	for _, r := range f.Env.Sim.Requests() {
		op, ok := d.Match(r.Method, r.Path)
		if !ok {
			continue // GraphQL
		}
		if slices.Contains(lacks, op.Key()) {
			tried++
			assert.Equal(t, http.StatusNotFound, r.Status, "GHES 3.17 has no %s", op)
		} else {
			assert.Less(t, r.Status, http.StatusBadRequest, "%s %s", r.Method, r.Path)
		}
	}
	assert.NotZero(t, tried, "the run found out that sub-issues are missing")

	again := f.PlanningSnapshot(t)
	f.Env.Sim.ResetRequests()
	_, err = f.Run(t, pipeline.StagePlanning, again)
	require.NoError(t, err)
	assert.Equal(t, recs, again.SubWorkItems)
	assert.Zero(t, stagetest.FHWrites(f.Env.Sim), "a re-run writes nothing again")
}

// GitHub answers the same 422 to "already a sub-issue of this parent" and
// "already has another parent"; only the first is success.
func TestPlanningSubIssueWithAnotherParentEscalates(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.AddJSON(t, prompts.Planning, stagetest.GoodPlan)
	snap := f.PlanningSnapshot(t)
	_, err := f.Run(t, pipeline.StagePlanning, snap)
	require.NoError(t, err)

	// A human moves sub-issue C under another issue.
	c := snap.SubWorkItems[0]
	child, err := f.Env.Client.GetIssue(t.Context(), testenv.Repo, c.Issue)
	require.NoError(t, err)
	other := f.Env.Sim.SeedIssue(testenv.Repo.String(), "alice", "another epic", "")
	body := fmt.Sprintf(`{"sub_issue_id": %d, "replace_parent": true}`, child.ID)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost,
		fmt.Sprintf("%s/api/v3/repos/%s/issues/%d/sub_issues", f.Env.URL, testenv.Repo, other), bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+testenv.Token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	_, err = f.Run(t, pipeline.StagePlanning, f.PlanningSnapshot(t))
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "%v", err)
	assert.Equal(t, "sub_issue_has_other_parent", esc.Code)
	assert.Contains(t, esc.Reason, fmt.Sprintf("#%d", c.Issue))
}

// TestPlanningSubIssueLimitEscalatesWithItsReason: GitHub lets an issue
// have 100 sub-issues. A parent already at the limit refuses the link
// with the same 422 as a sub-issue with another parent; planning names the
// limit instead of misdiagnosing "another parent".
func TestPlanningSubIssueLimitEscalatesWithItsReason(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.AddJSON(t, prompts.Planning, stagetest.GoodPlan)
	snap := f.PlanningSnapshot(t)
	repo := testenv.Repo.String()
	for i := range 100 {
		n := f.Env.Sim.SeedIssue(repo, "alice", fmt.Sprintf("task %d", i), "")
		require.True(t, f.Env.Sim.SeedSubIssue(repo, snap.WorkItem, n))
	}

	_, err := f.Run(t, pipeline.StagePlanning, snap)
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "%v", err)
	assert.Equal(t, "sub_issue_limit", esc.Code)
	assert.Contains(t, esc.Reason, "already has 100 sub-issues, GitHub's limit")
}
