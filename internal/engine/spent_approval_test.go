package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
)

// TestSpentApprovalLeftByACrashIsRemoved kills the run that passed the
// architecture gate and ran to complete just before its release (the
// write that takes cogworks:approve off with the lock). The next run,
// after the lock timeout, finds the pipeline complete with no gate and the
// approval label left behind: it was spent on the gate, so the repair
// removes it, as the uninterrupted run's release did.
func TestSpentApprovalLeftByACrashIsRemoved(t *testing.T) {
	t.Parallel()
	run := func(t *testing.T, env *testenv.Env, gh *github.Client, issue int, runID string) error {
		t.Helper()
		cfg := config.Default()
		execs := artifactExecutors(gh)
		rec := &recorder{}
		for _, st := range pipeline.AllStages() {
			if _, ok := execs[st]; !ok && !st.Terminal() {
				execs[st] = rec.done()
			}
		}
		execs[pipeline.StageIntegration] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
			return StageResult{Event: pipeline.EventAllDone, Summary: "all sub-work-items integrated"}, nil
		})
		deps := Deps{GitHub: gh, Executors: execs, Config: cfg, RunID: runID, BotLogin: testenv.Bot, Clock: env.Clock.Now}
		_, err := Run(context.Background(), deps, Ref{Repo: testenv.Repo, Issue: issue}, 20)
		return err
	}
	toGate := func(t *testing.T) (*testenv.Env, int) {
		t.Helper()
		env, n := newCrashEnv(t)
		require.NoError(t, run(t, env, env.NewClient(t, nil), n, "run-1"))
		require.Equal(t, string(pipeline.StageArchitecture), captureState(t, env, n).Gate)
		require.True(t, env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelApprove))
		return env, n
	}

	// The uninterrupted run: how many writes it takes, and that its
	// release consumes the label.
	env, n := toGate(t)
	counter := &testkit.CrashTransport{K: -1}
	require.NoError(t, run(t, env, env.NewClient(t, counter), n, "run-2"))
	require.Equal(t, pipeline.StageComplete, captureState(t, env, n).Stage)
	require.NotContains(t, env.Sim.Labels(testenv.Repo.String(), n), pipeline.LabelApprove)
	last := counter.Writes()

	env, n = toGate(t)
	crashing := env.NewClient(t, &testkit.CrashTransport{K: last})
	_ = run(t, env, crashing, n, "run-2") // dies before its release
	require.Equal(t, pipeline.StageComplete, captureState(t, env, n).Stage, "the snapshot was written")
	require.Contains(t, env.Sim.Labels(testenv.Repo.String(), n), pipeline.LabelApprove, "the crash left the spent approval")

	env.Clock.Advance(31 * time.Minute)
	require.NoError(t, run(t, env, env.NewClient(t, nil), n, "run-3"))
	labels := env.Sim.Labels(testenv.Repo.String(), n)
	assert.NotContains(t, labels, pipeline.LabelApprove, "the spent approval is removed")
	assert.NotContains(t, labels, pipeline.LabelProcessing, "no lock left behind")
	assert.Contains(t, labels, pipeline.StageLabel(pipeline.StageComplete))
}
