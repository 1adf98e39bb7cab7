//go:build e2e

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/pipeline"
)

const (
	e2eToken = "ghs_cogworkse2e00000000000000000000000"
	e2eBot   = "cogworks[bot]"
	e2eHuman = "alice"
)

// buildCogworks builds the real binary, linked as a release links it
// (-s -w, as in .goreleaser.yaml). It leaves out the release's -trimpath,
// which only changes recorded paths and would compile every dependency
// again rather than share the compiled packages of the test build.
func buildCogworks(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cogworks")
	cmd := exec.Command("go", "build", "-ldflags", "-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// actionRun is one invocation of the binary the way action.yml runs it.
type actionRun struct {
	Stdout, Stderr string
	ExitCode       int
}

// runAsAction runs `cogworks process` with the environment of a GitHub
// Actions job: the event payload at GITHUB_EVENT_PATH, the checkout at
// GITHUB_WORKSPACE, the step summary and output files, and the CogWorks
// variables action.yml sets from its inputs.
func runAsAction(t *testing.T, bin string, env map[string]string) actionRun {
	t.Helper()
	cmd := exec.Command(bin, "process", "--event", env["GITHUB_EVENT_PATH"], "--workspace", env["GITHUB_WORKSPACE"],
		"--max-steps", "20", "--output", "json")
	for _, kv := range os.Environ() {
		// The test's own environment must not leak GitHub or CogWorks
		// settings into the run.
		if !strings.HasPrefix(kv, "GITHUB_") && !strings.HasPrefix(kv, "COGWORKS_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	run := actionRun{Stdout: stdout.String(), Stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		run.ExitCode = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return run
}

// issuesEvent writes an `issues` event payload for issue n with its current
// labels, built from GitHub's own example payload.
func issuesEvent(t *testing.T, sim *githubsim.Server, repo string, n int, label, path string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "cmd", "factory", "testdata", "events", "labeled.payload.json"))
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	is, ok := sim.Issue(repo, n)
	require.True(t, ok)
	labels := []any{}
	for _, l := range is.Labels {
		labels = append(labels, map[string]any{"name": l})
	}
	issue := p["issue"].(map[string]any)
	issue["number"], issue["title"], issue["labels"] = n, is.Title, labels
	p["label"] = map[string]any{"name": label}
	p["repository"].(map[string]any)["full_name"] = repo
	p["sender"].(map[string]any)["login"] = e2eHuman
	out, err := json.Marshal(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

var builtinSocket = regexp.MustCompile(`"socket":"([^"]+)"`)

// TestActionPipelineEndToEnd drives the real binary as the Action does,
// from cogworks:run to complete against the simulator: the scripted LLM
// (provider = "scripted" in the sample's config), no services.toml so the
// binary starts its built-in Go domain service, a maintainer approving
// the architecture gate between invocations.
func TestActionPipelineEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the whole pipeline")
	}
	bin := buildCogworks(t)

	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	repo := demo.Owner + "/" + demo.Name
	files, err := demo.Files()
	require.NoError(t, err)
	require.NotContains(t, files, ".cogworks/services.toml")
	sim.AddToken(e2eToken, e2eBot)
	sim.CreateRepo(demo.Owner, demo.Name, "main")
	sim.SeedFiles(repo, "main", files)
	sim.AddCollaborator(repo, e2eHuman, "maintain")
	ws := t.TempDir()
	require.NoError(t, demo.WriteWorkspace(ws, files))

	dir := t.TempDir()
	env := map[string]string{
		"GITHUB_ACTIONS":          "true",
		"GITHUB_REPOSITORY":       repo,
		"GITHUB_EVENT_NAME":       "issues",
		"GITHUB_EVENT_PATH":       filepath.Join(dir, "event.json"),
		"GITHUB_WORKSPACE":        ws,
		"GITHUB_OUTPUT":           filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY":     filepath.Join(dir, "summary.md"),
		"COGWORKS_GITHUB_TOKEN":   e2eToken,
		"COGWORKS_GITHUB_API_URL": url + "/api/v3/",
		"COGWORKS_LOG_FORMAT":     "json",
	}

	t.Run("issue without cogworks:run: exit 0, no GitHub request", func(t *testing.T) {
		n := sim.SeedIssue(repo, e2eHuman, "Typo in README", "teh → the", "documentation")
		issuesEvent(t, sim, repo, n, "documentation", env["GITHUB_EVENT_PATH"])
		sim.ResetRequests()
		run := runAsAction(t, bin, env) // and no LLM key either
		require.Equal(t, 0, run.ExitCode, run.Stderr)
		assert.Zero(t, sim.RequestCount())
		assert.Contains(t, run.Stderr, "has no cogworks:run label")
		assert.NotContains(t, run.Stderr, "built-in Go domain service")
		out, err := os.ReadFile(env["GITHUB_OUTPUT"])
		require.NoError(t, err)
		assert.Contains(t, string(out), "outcome=ignored\n")
		require.NoError(t, os.Remove(env["GITHUB_OUTPUT"]))
		require.NoError(t, os.Remove(env["GITHUB_STEP_SUMMARY"]))
	})

	n := sim.SeedIssue(repo, e2eHuman, demo.IssueTitle, demo.IssueBody)
	sim.LabelIssue(repo, n, e2eHuman, pipeline.LabelRun)
	label := pipeline.LabelRun
	var final string
	var approvals int
	for round := 0; round < 8 && final == ""; round++ {
		issuesEvent(t, sim, repo, n, label, env["GITHUB_EVENT_PATH"])
		start := time.Now()
		run := runAsAction(t, bin, env)
		t.Logf("round %d: %s", round, time.Since(start).Round(time.Millisecond))
		require.Equal(t, 0, run.ExitCode, "round %d\nstdout:\n%s\nstderr:\n%s", round, run.Stdout, run.Stderr)
		assert.Contains(t, run.Stderr, "using the built-in Go domain service")
		if m := builtinSocket.FindStringSubmatch(run.Stderr); m != nil {
			_, err := os.Stat(filepath.Dir(m[1]))
			assert.True(t, errors.Is(err, os.ErrNotExist), "the built-in service's socket directory is gone after exit")
		}
		lines := strings.Split(strings.TrimSpace(run.Stdout), "\n")
		var last struct{ Outcome, Stage string }
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &last), run.Stdout)
		switch last.Outcome {
		case "waiting":
			// The maintainer reviews the gate; the label event starts the
			// next run.
			sim.LabelIssue(repo, n, e2eHuman, pipeline.LabelApprove)
			label = pipeline.LabelApprove
			approvals++
		case "complete":
			final = last.Outcome
		default:
			require.Failf(t, "unexpected outcome", "round %d: %s\n%s", round, run.Stdout, run.Stderr)
		}
	}
	require.Equal(t, "complete", final)
	assert.GreaterOrEqual(t, approvals, 1, "the architecture gate waited for a human")
	assert.Contains(t, sim.Labels(repo, n), "cogworks:stage:complete")

	var prs []int
	for _, pr := range sim.Pulls(repo) {
		assert.False(t, pr.Merged, "CogWorks never merges")
		assert.Equal(t, e2eBot, pr.Author)
		prs = append(prs, pr.Number)
	}
	sort.Ints(prs)
	require.NotEmpty(t, prs)
	prJSON, err := json.Marshal(prs)
	require.NoError(t, err)

	out, err := os.ReadFile(env["GITHUB_OUTPUT"])
	require.NoError(t, err)
	blocks := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.GreaterOrEqual(t, len(blocks), 8, "one block of outputs per invocation")
	tail := strings.Join(blocks[len(blocks)-4:], "\n")
	assert.Equal(t, "stage=complete\noutcome=complete\npull-requests="+string(prJSON)+"\nissue="+itoa(n), tail)

	sum, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	require.NoError(t, err)
	s := string(sum)
	assert.Contains(t, s, "### CogWorks · "+repo+"#"+itoa(n))
	assert.Contains(t, s, "**outcome:** `waiting`", "the gate's run")
	assert.Contains(t, s, "**Stage:** `complete` · **outcome:** `complete`")
	assert.Contains(t, s, "| `interface-design` |", "step table")
	assert.Contains(t, s, "| **total** |", "cost table")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
