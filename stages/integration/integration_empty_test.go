package integration_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
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
