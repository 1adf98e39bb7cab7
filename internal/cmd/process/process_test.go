package process_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestProcessJSONOutput(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, out, _ := cmdtest.TestFactory(t, env)

	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "5", "--output", "json")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2, "intake advances, architecture waits at its human gate")
	var first, last map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &last))
	for _, k := range []string{"issue", "stage", "action", "outcome", "github_requests", "duration_ms"} {
		assert.Contains(t, first, k)
	}
	assert.Equal(t, float64(1), first["issue"])
	assert.Equal(t, "advanced", first["outcome"])
	assert.Equal(t, "waiting", last["outcome"])
	assert.Equal(t, 0, factory.ExitCode(err))
}

func TestProcessEventPayload(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	env.Sim.CreateRepo("Codertocat", "Hello-World", "main")
	n := env.Sim.SeedIssue("Codertocat/Hello-World", "Codertocat", "Spelling error in the README file", "It looks like you accidently spelled 'commit' with two 't's.")
	require.Equal(t, 1, n, "the fixture names issue #1")
	env.Sim.LabelIssue("Codertocat/Hello-World", n, "Codertocat", pipeline.LabelRun)
	f, out, _ := cmdtest.TestFactory(t, env)

	err := cmdtest.Execute(t, f, "process", "--event", filepath.Join("..", "factory", "testdata", "events", "issues.labeled.cogworks-run.payload.json"), "--workspace", t.TempDir(), "--output", "text")
	require.NoError(t, err)
	assert.Contains(t, out.String(), "#1")
	assert.Contains(t, env.Sim.Labels("Codertocat/Hello-World", 1), "cogworks:stage:architecture")

	out.Reset()
	err = cmdtest.Execute(t, f, "process", "--event", filepath.Join("..", "factory", "testdata", "events", "closed.payload.json"), "--workspace", t.TempDir())
	require.NoError(t, err, "a PR from a foreign branch is ignored, not an error")
	assert.Empty(t, out.String())
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no issue", []string{"process", "--repo", "a/b"}, 2},
		{"both issue and event", []string{"process", "--repo", "a/b", "--issue", "1", "--event", "x.json"}, 2},
		{"bad output", []string{"process", "--repo", "a/b", "--issue", "1", "--output", "yaml"}, 2},
		{"unknown flag", []string{"process", "--frobnicate"}, 2},
		{"bad repo", []string{"process", "--repo", "nope", "--issue", "1"}, 2},
		{"missing event file", []string{"process", "--event", "/nonexistent/event.json"}, 2},
		{"bad max steps", []string{"process", "--repo", "a/b", "--issue", "1", "--max-steps", "0"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdtest.Execute(t, f, tt.args...)
			require.Error(t, err)
			assert.Equal(t, tt.code, factory.ExitCode(err), err.Error())
		})
	}
}

func TestBadConfigIsUsageError(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	f, _, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".cogworks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".cogworks", "config.toml"), []byte("[gates]\nplanning = \"sometimes\"\n"), 0o644))
	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", ws)
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	assert.Contains(t, err.Error(), "config.toml")
	assert.Contains(t, err.Error(), "gates.planning")
}

func TestEscalationExitsOne(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, _, _ := cmdtest.TestFactory(t, env)
	f.Executors = func(context.Context, factory.Client, github.Repo, string, config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		return map[pipeline.Stage]engine.StageExecutor{pipeline.StageIntake: engine.StageExecutorFunc(func(context.Context, engine.StageInput) (engine.StageResult, error) {
			return engine.StageResult{}, &escalation.Error{Reason: "scope too large"}
		})}, nil, nil
	}
	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir())
	require.Error(t, err)
	assert.Equal(t, 1, factory.ExitCode(err))
}
