package integration_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagetest"
)

// TestIntegrationEmptyBranchEscalates: when the sub-work-item's branch
// holds nothing its base lacks (its fix already landed in the interface
// PR), integration escalates with a reason instead of meeting GitHub's 422
// "No commits between".
func TestIntegrationEmptyBranchEscalates(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	ctx := context.Background()
	repo := testenv.Repo.String()
	base := fmt.Sprintf("cogworks/%d/interfaces", f.Parent)
	// The fix went into the interface PR: the SWI's branch adds nothing.
	f.Env.Sim.SeedFiles(repo, base, map[string]string{stagetest.ShipCodePath: stagetest.ShipCode})
	sha, ok := f.Env.Sim.BranchSHA(repo, base)
	require.True(t, ok)
	empty := fmt.Sprintf("cogworks/%d/swi-9", f.Parent)
	require.NoError(t, f.Env.Client.CreateBranch(ctx, testenv.Repo, empty, sha))
	f.Snap.SubWorkItems[0].Branch = empty

	_, err := f.Run(t, pipeline.StageIntegration)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	assert.Contains(t, esc.Reason, "has no change against "+base)
	assert.Empty(t, f.Env.Sim.Pulls(repo), "no PR is attempted")
}

// TestIntegrationNoCommitsRaceIsTransient: GitHub can answer 422 "No
// commits between" to a PR opened right after its branch was pushed. A
// branch at another commit than its base is that race, not an empty
// branch: the step fails transiently (state untouched) and the next run
// opens the PR. Before, the work item was escalated to a human.
func TestIntegrationNoCommitsRaceIsTransient(t *testing.T) {
	t.Parallel()
	f := stagetest.NewShipFixture(t, false)
	repo := testenv.Repo.String()
	require.NoError(t, f.Env.Sim.InjectFault(githubsim.Fault{
		Method: "POST", PathPattern: `/repos/[^/]+/[^/]+/pulls$`, Status: 422, Count: 1,
		Body: `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"No commits between cogworks/1/interfaces and cogworks/1/swi-1"}],"documentation_url":"https://docs.github.com/rest/pulls/pulls#create-a-pull-request","status":"422"}`,
	}))

	_, err := f.Run(t, pipeline.StageIntegration)
	var transient *engine.TransientError
	require.ErrorAs(t, err, &transient, "%v", err)
	var esc *escalation.Error
	assert.False(t, errors.As(err, &esc), "a race is not escalated")
	assert.Contains(t, err.Error(), "had not yet seen")
	assert.Empty(t, f.Env.Sim.Pulls(repo))

	_, err = f.Run(t, pipeline.StageIntegration)
	require.NoError(t, err)
	assert.Len(t, f.Env.Sim.Pulls(repo), 1, "the next run opens the PR")
}
