package root_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// behindItem is a work item with state (one step taken) and a PR of the
// bot's on main from cogworks/<N>/swi-1, which main then moves past; a
// person's own PR on main sits beside it.
type behindItem struct {
	issue, pr      int
	branch, before string // before: main's head before it moved
}

func newBehindItem(t *testing.T, env *testenv.Env) behindItem {
	t.Helper()
	ctx := context.Background()
	repo := testenv.Repo.String()
	n := env.Sim.SeedIssue(repo, "alice", "work", "b")
	env.Sim.LabelIssue(repo, n, "alice", pipeline.LabelRun)
	f, _, _ := cmdtest.TestFactory(t, env)
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", repo, "--issue", fmt.Sprint(n), "--workspace", t.TempDir()))
	branch := fmt.Sprintf("cogworks/%d/swi-1", n)
	env.Sim.SeedFiles(repo, branch, map[string]string{"a.go": "package widgets\n"})
	pr, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "swi-1", Head: branch, Base: "main"})
	require.NoError(t, err)
	env.Sim.SeedFiles(repo, "feature", map[string]string{"mine.go": "package widgets\n"})
	_, err = env.ClientAs(t, "alice").CreatePull(ctx, testenv.Repo, github.NewPull{Title: "mine", Head: "feature", Base: "main"})
	require.NoError(t, err)
	before, _ := env.Sim.BranchSHA(repo, "main")
	env.Sim.SeedFiles(repo, "main", map[string]string{"NEWS.md": "news\n"})
	return behindItem{issue: n, pr: pr.Number, branch: branch, before: before}
}

// assertUpdated checks the item's branch got main merged in on top of
// its own head, and that no other branch was written.
func (b behindItem) assertUpdated(t *testing.T, env *testenv.Env, heads map[string]string) {
	t.Helper()
	repo := testenv.Repo.String()
	head, ok := env.Sim.BranchSHA(repo, b.branch)
	require.True(t, ok)
	c, err := env.Client.GetCommit(context.Background(), testenv.Repo, head)
	require.NoError(t, err)
	mainHead, _ := env.Sim.BranchSHA(repo, "main")
	require.Len(t, c.Parents, 2, "a merge commit of main into the branch")
	assert.Equal(t, []string{heads[b.branch], mainHead}, c.Parents, "on top of the branch's own head: nothing force-pushed")
	assert.Equal(t, "news\n", env.Sim.BranchFiles(repo, b.branch)["NEWS.md"])
	for branch, sha := range heads {
		if branch != b.branch {
			now, _ := env.Sim.BranchSHA(repo, branch)
			assert.Equal(t, sha, now, "%s not written", branch)
		}
	}
}

func branchHeads(t *testing.T, env *testenv.Env, branches ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, b := range branches {
		sha, ok := env.Sim.BranchSHA(testenv.Repo.String(), b)
		require.True(t, ok, b)
		out[b] = sha
	}
	return out
}

// TestProcessAllRestacksAnItemWhosePRIsBehind: the cron's restack sweep
// finds a work item whose PR main moved past — no event said so, and the
// PR was not updated — and merges main into its branch; a person's PR
// and every other branch are left alone, and the next run writes
// nothing.
func TestProcessAllRestacksAnItemWhosePRIsBehind(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	b := newBehindItem(t, env)
	heads := branchHeads(t, env, "main", "feature", b.branch)
	f, out, _ := cmdtest.TestFactory(t, env)
	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(), "--output", "json"))
	var restacked bool
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			Issue   int    `json:"issue"`
			Action  string `json:"action"`
			Outcome string `json:"outcome"`
			Reason  string `json:"reason"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		if r.Action == "restack" && r.Issue == b.issue {
			restacked = true
			assert.Equal(t, "advanced", r.Outcome, r.Reason)
			assert.Contains(t, r.Reason, fmt.Sprintf("#%d updated with its base", b.pr))
		}
	}
	require.True(t, restacked, out.String())
	b.assertUpdated(t, env, heads)

	writes := nonGETs(env)
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process-all", "--repo", testenv.Repo.String(), "--workspace", t.TempDir(), "--output", "json"))
	assert.Equal(t, writes, nonGETs(env), "an up-to-date stack costs the next run reads only")
}

// TestActionPushOnMainUpdatesOpenPRsAndIgnoresOtherPushesForFree: the
// Action's `process --event` on a push that moved main wakes the work
// item with the open PR and updates its branch (nothing else written); a
// push to another branch — a person's, or CogWorks's own cogworks/…
// branch — costs no GitHub request at all.
func TestActionPushOnMainUpdatesOpenPRsAndIgnoresOtherPushesForFree(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	b := newBehindItem(t, env)
	heads := branchHeads(t, env, "main", "feature", b.branch)
	f, out, _ := cmdtest.TestFactory(t, env)
	event := func(branch, before, pusher string) string {
		ev, err := env.Sim.PushEvent(testenv.Repo.String(), branch, before, pusher, 0)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "event.json")
		require.NoError(t, os.WriteFile(path, ev.Body, 0o600))
		return path
	}
	for _, ignored := range []struct{ branch, pusher string }{{"feature", "alice"}, {b.branch, testenv.Bot}} {
		path := event(ignored.branch, heads[ignored.branch], ignored.pusher)
		env.Sim.ResetRequests()
		require.NoError(t, cmdtest.Execute(t, f, "process", "--event", path, "--workspace", t.TempDir(), "--output", "json"))
		assert.Zero(t, env.Sim.RequestCount(), "a push to %s costs no request", ignored.branch)
	}

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process", "--event", event("main", b.before, "alice"), "--workspace", t.TempDir(), "--output", "json"))
	assert.Contains(t, out.String(), fmt.Sprintf("#%d updated with its base", b.pr))
	b.assertUpdated(t, env, heads)
}

func nonGETs(env *testenv.Env) int {
	n := 0
	for _, r := range env.Sim.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// TestPushRestackCost pins the GitHub requests of one restack on a push
// (benchmarks/README.md): `process --event` on a push that moved main,
// with one work item whose one PR is behind. The push costs one list of
// the open PRs (the items); the item then gets its normal step (what that
// costs is the step's own: here the fake executors advance it) and its
// restack: the check (the open PRs, the closed PRs of its base, main's
// head, one compare, the PR's comments), the issue and its comments, the lock (label,
// claim, the comments again), the pass's open PRs, update-branch, the
// status comment, the run record and the release.
func TestPushRestackCost(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	b := newBehindItem(t, env)
	f, out, _ := cmdtest.TestFactory(t, env)
	ev, err := env.Sim.PushEvent(testenv.Repo.String(), "main", b.before, "alice", 0)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "event.json")
	require.NoError(t, os.WriteFile(path, ev.Body, 0o600))
	env.Sim.ResetRequests()
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process", "--event", path, "--workspace", t.TempDir(), "--output", "json"))
	steps, restack := 0, -1
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			Action   string `json:"action"`
			Requests int    `json:"github_requests"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &r))
		steps += r.Requests
		if r.Action == "restack" {
			restack = r.Requests
		}
	}
	reads, writes := 0, 0
	var restackReads, restackWrites int
	for i, r := range env.Sim.Requests() {
		get := r.Method == "GET"
		if get {
			reads++
		} else {
			writes++
		}
		if i >= len(env.Sim.Requests())-restack {
			if get {
				restackReads++
			} else {
				restackWrites++
			}
		}
	}
	t.Logf("push on main: %d requests in all (%d reads, %d writes); the restack step %d (%d reads, %d writes); finding the items %d",
		reads+writes, reads, writes, restack, restackReads, restackWrites, reads+writes-steps)
	assert.Equal(t, 1, reads+writes-steps, "finding the items: one list of the open PRs")
	assert.Equal(t, 16, restack, "the restack step")
	assert.Equal(t, 6, restackWrites, "lock label, claim, update-branch, status, record, release")
}
