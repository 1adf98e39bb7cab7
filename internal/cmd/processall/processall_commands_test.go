package processall_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/processall"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestProcessAllAnswersACommandWhoseRunWasLost: a maintainer stops a
// pipeline, then comments /cogworks retry, and the run that comment's
// event should have started never happens (a dropped Actions run, a
// refused delivery). The stopped pipeline has no cogworks:run, so the
// label search never finds it: before process-all searched for commands,
// the retry waited forever (as it still does with --command-window 0).
// Now the cron answers it and the pipeline resumes; a stopped pipeline
// with nothing pending is read, not written; and one nobody touched for
// longer than the window costs nothing.
func TestProcessAllAnswersACommandWhoseRunWasLost(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	f, out, _ := cmdtest.TestFactory(t, env)
	ctx := context.Background()
	post := func(t *testing.T, n int, body string) github.Comment {
		t.Helper()
		env.Clock.Advance(time.Minute)
		c, err := env.ClientAs(t, "alice").CreateComment(ctx, testenv.Repo, n, body)
		require.NoError(t, err)
		return c
	}
	snapshot := func(t *testing.T, n int) pipeline.Snapshot {
		t.Helper()
		snap, err := factory.ReadSnapshot(ctx, f, testenv.Repo, n)
		require.NoError(t, err)
		return snap
	}
	// stoppedPipeline takes a pipeline's first step, then stops it.
	stoppedPipeline := func(t *testing.T) int {
		t.Helper()
		n := env.Sim.SeedIssue(repo, "alice", "work", "b")
		env.Sim.LabelIssue(repo, n, "alice", pipeline.LabelRun)
		require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", repo, "--issue", fmt.Sprint(n), "--workspace", t.TempDir(), "--max-steps", "1"))
		post(t, n, "/cogworks stop")
		require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", repo, "--issue", fmt.Sprint(n), "--workspace", t.TempDir(), "--max-steps", "1"))
		require.NotNil(t, snapshot(t, n).Stopped)
		require.NotContains(t, env.Sim.Labels(repo, n), pipeline.LabelRun)
		return n
	}
	processAll := func(t *testing.T, args ...string) map[int]int {
		t.Helper()
		out.Reset()
		require.NoError(t, cmdtest.Execute(t, f, append([]string{"process-all", "--repo", repo, "--workspace", t.TempDir(), "--output", "json"}, args...)...))
		return issuesIn(t, out.String())
	}
	touched := func(n int) (reads, writes int) {
		for _, r := range env.Sim.Requests() {
			if strings.Contains(r.Path+"/", fmt.Sprintf("/issues/%d/", n)) {
				if r.Method == "GET" {
					reads++
				} else {
					writes++
				}
			}
		}
		return reads, writes
	}

	asleep := stoppedPipeline(t) // stopped, and nobody comes back to it
	env.Clock.Advance(processall.DefaultCommandWindow + time.Hour)
	quiet := stoppedPipeline(t) // stopped, nothing pending
	waiting := stoppedPipeline(t)
	retry := post(t, waiting, "/cogworks retry") // its run is lost

	assert.NotContains(t, processAll(t, "--command-window", "0"), waiting, "without the command search the retry waits")
	assert.NotNil(t, snapshot(t, waiting).Stopped)

	env.Sim.ResetRequests()
	stepped := processAll(t)
	assert.Contains(t, stepped, waiting)
	snap := snapshot(t, waiting)
	assert.Nil(t, snap.Stopped, "the retry resumed the pipeline")
	assert.Equal(t, retry.ID, snap.CommandsSeen, "the retry was handled once")
	assert.Contains(t, env.Sim.Labels(repo, waiting), pipeline.LabelRun)

	assert.Contains(t, stepped, quiet, "a recent stopped pipeline is looked at")
	reads, writes := touched(quiet)
	assert.Zero(t, writes, "nothing pending: nothing written on #%d", quiet)
	assert.LessOrEqual(t, reads, 2, "nothing pending costs the step's reads only")
	assert.NotNil(t, snapshot(t, quiet).Stopped)
	t.Logf("a stopped pipeline with nothing pending costs %d reads, %d writes", reads, writes)

	assert.NotContains(t, stepped, asleep, "outside the window: not stepped")
	reads, writes = touched(asleep)
	assert.Zero(t, reads+writes, "outside the window: no request")
}

// TestSelectWorkStepsWhatMayHoldACommand decides from the search hits
// alone which issues process-all steps.
func TestSelectWorkStepsWhatMayHoldACommand(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)
	since := now.Add(-processall.DefaultCommandWindow)
	recent, old := now.Add(-time.Hour), now.Add(-processall.DefaultCommandWindow-time.Hour)
	run, failed, retry := pipeline.LabelRun, pipeline.StageLabel(pipeline.StageFailed), pipeline.LabelRetry
	arch := pipeline.StageLabel(pipeline.StageArchitecture)
	tests := []struct {
		name    string
		labels  []string
		updated time.Time
		since   time.Time
		want    bool
	}{
		{"running pipeline", []string{run, arch}, old, since, true},
		{"fresh item", []string{run}, old, since, true},
		{"failed, retry label", []string{run, failed, retry}, old, since, true},
		{"failed, touched recently: a /cogworks retry may wait", []string{run, failed}, recent, since, true},
		{"failed, untouched", []string{run, failed}, old, since, false},
		{"failed, command search off", []string{run, failed}, recent, time.Time{}, false},
		{"stopped, touched recently", []string{arch}, recent, since, true},
		{"stopped, untouched", []string{arch}, old, since, false},
		{"stopped, command search off", []string{arch}, recent, time.Time{}, false},
		{"no pipeline: a comment mentions cogworks", []string{"bug"}, recent, since, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := &processall.ProcessAllOptions{Repo: testenv.Repo.String(), ShardN: 1, CommandsSince: tt.since}
			items, err := processall.SelectWork([]github.Issue{{Number: 7, Labels: tt.labels, UpdatedAt: tt.updated}}, opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want, len(items) == 1)
		})
	}
}

func TestCommandQuery(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 26, 18, 30, 0, 0, time.FixedZone("CET", 3600))
	assert.Equal(t, `repo:acme/widgets is:issue is:open -label:"cogworks:run" -label:"cogworks:stage:complete" cogworks in:comments updated:>=2026-11-26T17:30:00Z`,
		processall.CommandQuery("repo:acme/widgets", since))
}
