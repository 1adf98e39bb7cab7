package processall_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestProcessAllProcessesEveryWorkItemOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	var items []int
	for i := 0; i < 5; i++ {
		n := env.Sim.SeedIssue(repo, "alice", "work", "b")
		env.Sim.LabelIssue(repo, n, "alice", pipeline.LabelRun)
		items = append(items, n)
	}
	idle := env.Sim.SeedIssue(repo, "alice", "not a work item", "b")
	f, out, _ := cmdtest.TestFactory(t, env)

	err := cmdtest.Execute(t, f, "process-all", "--repo", repo, "--workspace", t.TempDir(), "--concurrency", "3", "--output", "json")
	require.NoError(t, err)
	seen := map[float64]int{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		seen[r["issue"].(float64)]++
	}
	assert.Len(t, seen, len(items))
	for _, n := range items {
		assert.Equal(t, 1, seen[float64(n)], "issue %d processed exactly once", n)
		assert.Contains(t, env.Sim.Labels(repo, n), "cogworks:stage:architecture")
	}
	assert.NotContains(t, env.Sim.Labels(repo, idle), "cogworks:stage:intake")
}
