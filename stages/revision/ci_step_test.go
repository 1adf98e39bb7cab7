package revision_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/revision"
)

// TestCIStepPendingReadsOnlyThePRItsHeadItsChecksAndComments: the
// engine's read-only check before the lock is pending only for a failed
// check on the current head of the bot's own PR, in five reads and no
// write.
func TestCIStepPendingReadsOnlyThePRItsHeadItsChecksAndComments(t *testing.T) {
	e := newPREnv(t)
	ctx := context.Background()
	step := revision.CIStep{GitHub: e.Client}
	in := engine.StageInput{Repo: testenv.Repo, BotLogin: testenv.Bot, Config: config.Config{}}

	reqs := e.Sim.RequestCount()
	ok, why, err := step.PendingCI(ctx, in, e.pr, "")
	require.NoError(t, err)
	assert.False(t, ok, "no check ran yet")
	assert.NotEmpty(t, why)
	assert.Equal(t, 4, e.Sim.RequestCount()-reqs, "nothing failed: the PR, its head, its check runs and workflow runs")

	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	head, err := e.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	reqs, writes := e.Sim.RequestCount(), e.writes()
	ok, why, err = step.PendingCI(ctx, in, e.pr, head.SHA)
	require.NoError(t, err)
	assert.True(t, ok, why)
	assert.Equal(t, 5, e.Sim.RequestCount()-reqs, "the PR, its head, its check runs and workflow runs, its comments")
	assert.Equal(t, writes, e.writes())

	ok, why, err = step.PendingCI(ctx, in, e.pr, "0000000000000000000000000000000000000000")
	require.NoError(t, err)
	assert.False(t, ok, "a head that moved since the failure asks for nothing")
	assert.Contains(t, why, "moved")

	in.BotLogin = "someone-else"
	ok, _, err = step.PendingCI(ctx, in, e.pr, "")
	require.NoError(t, err)
	assert.False(t, ok, "only the bot's own PRs are revised")
}

// TestCIStepPendingSkipsAFailureTheBotAnswered: a failure the bot
// answered with a comment at the PR's head — an escalation, or a report
// of an infrastructure failure nothing re-ran — is not pending, so the
// cron's sweeps over a PR left red for a maintainer take no lock. A new
// head, or a new failure at the head after a re-run, is pending again;
// and only the bot's own comment counts: a person's copy of its marker
// silences nothing. Checked by matching the marker in anybody's comment
// (the "person's copy" case then fails) and by keying the report by head
// only (the re-run case does).
func TestCIStepPendingSkipsAFailureTheBotAnswered(t *testing.T) {
	ctx := context.Background()
	in := engine.StageInput{Repo: testenv.Repo, BotLogin: testenv.Bot, Config: config.Config{}}
	// escalate makes the bot escalate the failing head: its revision
	// changes nothing.
	escalate := func(t *testing.T, e prEnv) {
		t.Helper()
		e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		out, err := e.ciReviser(e.Client, &fakeGen{}, 3).Cycle(ctx, testenv.Repo, e.pr, "")
		require.NoError(t, err)
		require.Equal(t, revision.Escalated, out.Action, out.Reason)
	}
	// report makes the bot report a workflow that could not start.
	report := func(t *testing.T, e prEnv) {
		t.Helper()
		e.seedRun(t, githubsim.CIRun{Conclusion: "startup_failure"})
		out, err := e.ciReviser(e.Client, &fakeGen{}, 3).Cycle(ctx, testenv.Repo, e.pr, "")
		require.NoError(t, err)
		require.Equal(t, revision.Infrastructure, out.Action, out.Reason)
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, e prEnv)
		pending bool
		why     string
	}{
		{"a failure nobody answered", func(t *testing.T, e prEnv) {
			e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		}, true, ""},
		{"a workflow that could not start", func(t *testing.T, e prEnv) {
			e.seedRun(t, githubsim.CIRun{Conclusion: "startup_failure"})
		}, true, ""},
		{"escalated at the head", escalate, false, "already escalated"},
		{"reported at the head", report, false, "already reported"},
		{"escalated, then the head moved", func(t *testing.T, e prEnv) {
			escalate(t, e)
			require.NoError(t, e.Client.PutFile(ctx, testenv.Repo, github.FileCommit{Path: "notes.md", Branch: branch, Message: "a maintainer's fix", Content: []byte("n\n")}))
			e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		}, true, ""},
		{"reported, then a re-run failed on the code", func(t *testing.T, e prEnv) {
			report(t, e)
			e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		}, true, ""},
		{"a person's copy of the escalation", func(t *testing.T, e prEnv) {
			escalate(t, e)
			comments, err := e.Client.ListComments(ctx, testenv.Repo, e.pr)
			require.NoError(t, err)
			require.Len(t, comments, 1)
			_, err = e.ClientAs(t, "alice").CreateComment(ctx, testenv.Repo, e.pr, comments[0].Body)
			require.NoError(t, err)
			require.NoError(t, e.Client.DeleteComment(ctx, testenv.Repo, comments[0].ID))
		}, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPREnv(t)
			tt.setup(t, e)
			writes := e.writes()
			ok, why, err := revision.CIStep{GitHub: e.Client}.PendingCI(ctx, in, e.pr, "")
			require.NoError(t, err)
			assert.Equal(t, tt.pending, ok, why)
			assert.Contains(t, why, tt.why)
			assert.Equal(t, writes, e.writes(), "no write")
		})
	}
}
