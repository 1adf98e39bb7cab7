package processall_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/processall"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// processAllRequests runs process-all over five fresh work items with the
// given concurrency and returns each step's reported GitHub requests, keyed
// by issue and step. A first item is stepped alone beforehand so that the
// repository labels exist and no step pays for creating them, which would
// otherwise fall to whichever concurrent step comes first.
func processAllRequests(t *testing.T, concurrency int) (map[string]float64, int) {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	warm := env.Sim.SeedIssue(repo, "alice", "warm-up", "b")
	env.Sim.LabelIssue(repo, warm, "alice", pipeline.LabelRun)
	f, out, _ := cmdtest.TestFactory(t, env)
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", repo, "--issue", fmt.Sprint(warm), "--workspace", t.TempDir()))
	for range 5 {
		n := env.Sim.SeedIssue(repo, "alice", "work", "b")
		env.Sim.LabelIssue(repo, n, "alice", pipeline.LabelRun)
	}
	out.Reset()
	env.Sim.ResetRequests()
	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", repo, "--workspace", t.TempDir(),
		"--concurrency", fmt.Sprint(concurrency), "--max-steps", "2", "--output", "json"))
	perStep := map[string]float64{}
	steps := map[float64]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		issue := r["issue"].(float64)
		perStep[fmt.Sprintf("#%v step %d", issue, steps[issue])] = r["github_requests"].(float64)
		steps[issue]++
	}
	return perStep, env.Sim.RequestCount()
}

// TestProcessAllReportsEachStepsOwnRequests: steps running at once share
// one client, yet each reports only its own requests: every request but
// the three searches (work items, /cogworks commands on stopped
// pipelines, and the bot's PRs to revise) is counted by exactly one step, and each step
// reports what it reports when the items are stepped one at a time (give
// or take a request the interleaving itself can cost, such as a
// conditional read whose cached copy another step just replaced).
func TestProcessAllReportsEachStepsOwnRequests(t *testing.T) {
	t.Parallel()
	serial, serialTotal := processAllRequests(t, 1)
	concurrent, concurrentTotal := processAllRequests(t, 6)
	require.Len(t, serial, 11, "5 items × 2 steps, and the warm-up item's one step")
	require.Len(t, concurrent, len(serial))
	for _, run := range []struct {
		perStep map[string]float64
		total   int
	}{{serial, serialTotal}, {concurrent, concurrentTotal}} {
		var sum float64
		for _, n := range run.perStep {
			assert.Positive(t, n)
			sum += n
		}
		assert.Equal(t, float64(run.total-3), sum, "each request counted once")
	}
	for step, n := range serial {
		assert.InDelta(t, n, concurrent[step], 1, step)
	}
}

// TestProcessAllSkipsFinishedWorkItems: a completed work item, and a failed
// one nobody asked to retry nor touched within --command-window, cost
// process-all no request; a failed one with cogworks:retry is stepped.
func TestProcessAllSkipsFinishedWorkItems(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	complete := env.Sim.SeedIssue(repo, "alice", "done", "b", pipeline.LabelRun, pipeline.StageLabel(pipeline.StageComplete))
	failed := env.Sim.SeedIssue(repo, "alice", "failed", "b", pipeline.LabelRun, pipeline.StageLabel(pipeline.StageFailed))
	retry := env.Sim.SeedIssue(repo, "alice", "retry", "b", pipeline.LabelRun, pipeline.StageLabel(pipeline.StageFailed), pipeline.LabelRetry)
	fresh := env.Sim.SeedIssue(repo, "alice", "new", "b", pipeline.LabelRun)
	f, out, _ := cmdtest.TestFactory(t, env)
	// Nothing happened on the issues for longer than the command window.
	env.Clock.Advance(processall.DefaultCommandWindow + time.Minute)

	env.Sim.ResetRequests()
	err := cmdtest.Execute(t, f, "process-all", "--repo", repo, "--workspace", t.TempDir(), "--output", "json")
	require.NoError(t, err)
	stepped := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		stepped[int(r["issue"].(float64))] = true
	}
	assert.Equal(t, map[int]bool{retry: true, fresh: true}, stepped)
	for _, r := range env.Sim.Requests() {
		for _, n := range []int{complete, failed} {
			assert.NotContains(t, r.Path+"/", fmt.Sprintf("/issues/%d/", n), "%s %s touches finished #%d", r.Method, r.Path, n)
		}
	}
}

func TestWorkItemQueryExcludesCompleted(t *testing.T) {
	t.Parallel()
	assert.Equal(t, `repo:acme/widgets is:issue is:open label:"cogworks:run" -label:"cogworks:stage:complete"`, processall.WorkItemQuery("repo:acme/widgets"))
}
