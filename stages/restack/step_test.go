package restack_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/restack"
)

// TestStepRestacksOnlyItsWorkItem: the engine's restack step, run under
// one work item's lock, retargets and updates that item's PRs and leaves
// another item's stale stack alone (its own lock guards it).
func TestStepRestacksOnlyItsWorkItem(t *testing.T) {
	e := newStack(t)
	ctx := context.Background()
	// Another work item's stack, also on the merged lower branch.
	const other = "cogworks/2/swi-1"
	head, err := e.Client.GetBranchHead(ctx, testenv.Repo, lower)
	require.NoError(t, err)
	require.NoError(t, e.Client.CreateBranch(ctx, testenv.Repo, other, head.SHA))
	e.Sim.SeedFiles(testenv.Repo.String(), other, map[string]string{"c.go": "package widgets\n"})
	otherPR, err := e.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "other", Head: other, Base: lower})
	require.NoError(t, err)
	e.mergeAs(t, "alice", e.lowerPR)

	in := engine.StageInput{Repo: testenv.Repo, BotLogin: testenv.Bot, Issue: github.Issue{Number: 1}}
	step := restack.Step{GitHub: e.Client}
	w := e.writes()
	pending, why, err := step.Pending(ctx, in)
	require.NoError(t, err)
	assert.True(t, pending, why)
	assert.Equal(t, w, e.writes(), "pending reads only")
	out, err := step.Restack(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, map[int]string{e.upperPR: "main"}, out.Retargeted)
	assert.Equal(t, []int{e.upperPR}, out.Updated)
	p, err := e.Client.GetPull(ctx, testenv.Repo, otherPR.Number)
	require.NoError(t, err)
	assert.Equal(t, lower, p.Base, "another work item's PR is not touched")
	pending, _, err = step.Pending(ctx, in)
	require.NoError(t, err)
	assert.False(t, pending, "a restacked item asks for nothing more")
	pending, _, err = step.Pending(ctx, engine.StageInput{Repo: testenv.Repo, BotLogin: testenv.Bot, Issue: github.Issue{Number: 2}})
	require.NoError(t, err)
	assert.True(t, pending, "the other item's PR still sits on the merged branch")
}
