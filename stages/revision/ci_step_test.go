package revision_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/revision"
)

// TestCIStepPendingReadsOnlyThePRItsHeadAndItsChecks: the engine's
// read-only check before the lock is pending only for a failed check on
// the current head of the bot's own PR, in three reads and no write.
func TestCIStepPendingReadsOnlyThePRItsHeadAndItsChecks(t *testing.T) {
	e := newPREnv(t)
	ctx := context.Background()
	step := revision.CIStep{GitHub: e.Client}
	in := engine.StageInput{Repo: testenv.Repo, BotLogin: testenv.Bot, Config: config.Config{}}

	ok, why, err := step.PendingCI(ctx, in, e.pr, "")
	require.NoError(t, err)
	assert.False(t, ok, "no check ran yet")
	assert.NotEmpty(t, why)

	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	head, err := e.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	reqs := e.Sim.RequestCount()
	ok, why, err = step.PendingCI(ctx, in, e.pr, head.SHA)
	require.NoError(t, err)
	assert.True(t, ok, why)
	assert.Equal(t, 3, e.Sim.RequestCount()-reqs, "the PR, its head, its check runs")

	ok, why, err = step.PendingCI(ctx, in, e.pr, "0000000000000000000000000000000000000000")
	require.NoError(t, err)
	assert.False(t, ok, "a head that moved since the failure asks for nothing")
	assert.Contains(t, why, "moved")

	in.BotLogin = "someone-else"
	ok, _, err = step.PendingCI(ctx, in, e.pr, "")
	require.NoError(t, err)
	assert.False(t, ok, "only the bot's own PRs are revised")
}
