package processall_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/processall"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestParseShard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		k, n    int
		wantErr string
	}{
		{"", 0, 1, ""},
		{"0/1", 0, 1, ""},
		{"2/3", 2, 3, ""},
		{"3/3", 0, 0, "k must be in [0, n)"},
		{"-1/3", 0, 0, "k must be in [0, n)"},
		{"1/0", 0, 0, "n must be ≥ 1"},
		{"1", 0, 0, "no slash"},
		{"a/b", 0, 0, "not two integers"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			k, n, err := processall.ParseShard(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), `"`+tt.in+`"`, "the error names the value")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, [2]int{tt.k, tt.n}, [2]int{k, n})
		})
	}
}

func TestProcessAllFlagErrorsExitTwo(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	for _, args := range [][]string{
		{"process-all", "--repo", "a/b", "--shard", "4/4"},
		{"process-all", "--repo", "a/b", "--shard", "x"},
		{"process-all", "--repo", "a/b", "--org", "acme"},
		{"process-all", "--org", "acme/widgets"},
		{"process-all", "--repo", "a/b", "--concurrency", "0"},
	} {
		err := cmdtest.Execute(t, f, args...)
		require.Error(t, err, args)
		assert.Equal(t, 2, factory.ExitCode(err), err.Error())
	}
	err := cmdtest.Execute(t, f, "process-all", "--repo", "a/b", "--shard", "4/4")
	assert.Contains(t, err.Error(), `"4/4"`)
}

// seedWork files n labelled issues and returns their numbers.
func seedWork(t *testing.T, env *testenv.Env, repo string, n int) []int {
	t.Helper()
	var out []int
	for range n {
		num := env.Sim.SeedIssue(repo, "alice", "work", "b")
		env.Sim.LabelIssue(repo, num, "alice", pipeline.LabelRun)
		out = append(out, num)
	}
	return out
}

func issuesIn(t *testing.T, out string) map[int]int {
	t.Helper()
	seen := map[int]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r engine.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		seen[r.Issue]++
	}
	return seen
}

// A search GitHub cut short twice still steps what it found, and says so.
func TestProcessAllStepsAnIncompleteSearchsResults(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	seedWork(t, env, testenv.Repo.String(), 4)
	env.Sim.SetSearchIncomplete(2)
	f, out, errOut := cmdtest.TestFactory(t, env)
	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(), "--output", "json"))
	assert.Len(t, issuesIn(t, out.String()), 2, "the two found were stepped")
	assert.Contains(t, errOut.String(), "search was incomplete")
}

func TestProcessAllShardsSplitTheWorkWithoutOverlap(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	items := seedWork(t, env, testenv.Repo.String(), 7)
	f, out, _ := cmdtest.TestFactory(t, env)
	union := map[int]int{}
	for k := range 3 {
		out.Reset()
		require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(),
			"--shard", []string{"0/3", "1/3", "2/3"}[k], "--output", "json"))
		for n, c := range issuesIn(t, out.String()) {
			assert.Equal(t, k, n%3, "issue %d stepped by shard %d", n, k)
			union[n] += c
		}
	}
	for _, n := range items {
		assert.Equal(t, 1, union[n], "issue %d stepped by exactly one shard", n)
	}
}

func TestProcessAllOrgReadsEachRepositoryThroughTheAPI(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	// Four work items, three steps each, in one frozen instant come to
	// about GitHub's 80 writes a minute; this test is about workspaces.
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	env.Sim.CreateRepo("acme", "gadgets", "trunk")
	env.Sim.SeedFiles("acme/gadgets", "trunk", map[string]string{
		".cogworks/config.toml": "[gates]\narchitecture = \"auto-proceed\"\n", "main.go": "package main\n",
	})
	env.Sim.CreateRepo("other", "thing", "main")
	widgets := seedWork(t, env, testenv.Repo.String(), 2)
	gadgets := seedWork(t, env, "acme/gadgets", 2)
	foreign := seedWork(t, env, "other/thing", 1)
	f, out, _ := cmdtest.TestFactory(t, env)
	tmp := t.TempDir()
	f.Getenv = func(k string) string {
		if k == "TMPDIR" {
			return tmp
		}
		return ""
	}
	var mu sync.Mutex
	seenCfg := map[string]config.GateMode{}
	seenFiles := map[string]bool{}
	inner := f.Executors
	f.Executors = func(ctx context.Context, gh factory.Client, repo github.Repo, ws string, cfg config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		mu.Lock()
		seenCfg[repo.String()] = cfg.GateMode("architecture")
		_, err := os.Stat(filepath.Join(ws, "main.go"))
		seenFiles[repo.String()] = err == nil
		mu.Unlock()
		return inner(ctx, gh, repo, ws, cfg)
	}

	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--org", "acme", "--max-steps", "3", "--output", "json"))
	assert.Equal(t, map[string]config.GateMode{"acme/widgets": config.HumanGated, "acme/gadgets": config.AutoProceed}, seenCfg,
		"each repository runs with its own config")
	assert.True(t, seenFiles["acme/gadgets"], "the workspace holds the repository's files")
	for _, n := range widgets {
		assert.Contains(t, env.Sim.Labels(testenv.Repo.String(), n), "cogworks:stage:architecture")
	}
	for _, n := range gadgets {
		assert.NotContains(t, env.Sim.Labels("acme/gadgets", n), "cogworks:stage:architecture", "no gate: it moved on")
		assert.NotContains(t, env.Sim.Labels("acme/gadgets", n), "cogworks:stage:intake")
	}
	assert.NotContains(t, env.Sim.Labels("other/thing", foreign[0]), "cogworks:stage:intake", "another organisation is out of scope")
	assert.NotEmpty(t, out.String())
	left, err := filepath.Glob(filepath.Join(tmp, "cogworks-org-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "the run's temporary workspace is removed")
}

func TestProcessAllWritesAndPushesMetrics(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	seedWork(t, env, testenv.Repo.String(), 2)
	var (
		mu     sync.Mutex
		pushed string
		path   string
	)
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		pushed, path = string(b), r.URL.Path
		mu.Unlock()
	}))
	defer gw.Close()
	f, _, _ := cmdtest.TestFactory(t, env)
	m := metrics.New(metrics.Options{})
	f.Metrics = m
	file := filepath.Join(t.TempDir(), "cogworks.prom")

	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(),
		"--max-steps", "5", "--shard", "0/1", "--metrics-file", file, "--pushgateway", gw.URL))
	text, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(text), `cogworks_steps_total{outcome="advanced",stage="intake"} 2`)
	assert.Contains(t, string(text), `cogworks_gate_waits_total{stage="architecture"} 2`)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, "/metrics/job/cogworks/shard/0-of-1", path)
	assert.NotEmpty(t, pushed)
}

func TestProcessAllDefersWorkBelowTheRateReserve(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	items := seedWork(t, env, testenv.Repo.String(), 4)
	f, out, _ := cmdtest.TestFactory(t, env)
	env.Sim.SetRateLimitRemaining(60)

	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(),
		"--concurrency", "1", "--rate-reserve", "50", "--output", "json"), "deferring is not a failure")
	var stepped, deferred []int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r engine.Result
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		if r.Outcome == factory.OutcomeDeferred {
			deferred = append(deferred, r.Issue)
			assert.Contains(t, r.Reason, "GitHub rate limit")
			assert.Contains(t, r.Reason, "reserve 50")
			continue
		}
		stepped = append(stepped, r.Issue)
	}
	require.NotEmpty(t, stepped, "items start until the window is down to the reserve")
	require.NotEmpty(t, deferred, "then the rest waits")
	assert.ElementsMatch(t, items, append(slices.Clone(stepped), deferred...), "every item is reported once")
	rl := env.Client.RateLimit()
	assert.GreaterOrEqual(t, rl.Remaining, 50-20, "the last item started above the reserve and spent one step's requests")

	// A new window: the next run takes the deferred items.
	env.Sim.SetRateLimitRemaining(1000)
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(),
		"--concurrency", "1", "--rate-reserve", "50", "--output", "json"))
	again := issuesIn(t, out.String())
	for _, n := range deferred {
		assert.Equal(t, 1, again[n], "deferred #%d is stepped by the next run", n)
	}
	assert.NotContains(t, out.String(), `"deferred"`)
}

func TestProcessAllProcessesEveryWorkItemOnce(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	items := seedWork(t, env, repo, 5)
	idle := env.Sim.SeedIssue(repo, "alice", "not a work item", "b")
	f, out, _ := cmdtest.TestFactory(t, env)

	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", repo, "--workspace", t.TempDir(), "--concurrency", "3", "--output", "json"))
	seen := issuesIn(t, out.String())
	assert.Len(t, seen, len(items))
	for _, n := range items {
		assert.Equal(t, 1, seen[n], "issue %d processed exactly once", n)
		assert.Contains(t, env.Sim.Labels(repo, n), "cogworks:stage:architecture")
	}
	assert.NotContains(t, env.Sim.Labels(repo, idle), "cogworks:stage:intake")
}
