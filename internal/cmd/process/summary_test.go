package process_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/process"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// An event for an issue without cogworks:run exits 0 before any GitHub
// client, LLM provider or domain service is built, even with no LLM key
// and no GitHub credentials.
func TestTriggerCheckNeedsNothing(t *testing.T) {
	t.Parallel()
	for file, why := range map[string]string{
		"labeled.payload.json":          "issue #1 has no cogworks:run label",
		"issues.unlabeled.payload.json": "issue #1 has no cogworks:run label",
		"created.payload.json":          "comment 492700400 on #1 is not a new /cogworks command by a person",
	} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{
				"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
				"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
			}
			var clients, executors int
			var errOut testkit.SyncBuffer
			f := &factory.Factory{IO: factory.IOStreams{Out: &errOut, ErrOut: &errOut}, Getenv: func(k string) string { return env[k] }}
			f.GitHub = func(context.Context) (factory.Client, error) {
				clients++
				return nil, errors.New("no client in this test")
			}
			f.Executors = func(context.Context, factory.Client, github.Repo, string, config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
				executors++
				return nil, nil, errors.New("no executors in this test")
			}
			err := cmdtest.Execute(t, f, "process", "--event", filepath.Join("..", "factory", "testdata", "events", file), "--workspace", "/nonexistent/checkout")
			require.NoError(t, err)
			assert.Zero(t, clients, "no GitHub client built")
			assert.Zero(t, executors, "no LLM provider or domain service built")
			assert.Contains(t, errOut.String(), why)

			out, err := os.ReadFile(env["GITHUB_OUTPUT"])
			require.NoError(t, err)
			assert.Equal(t, "stage=\noutcome=ignored\npull-requests=[]\nissue=1\n", string(out))
			sum, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
			require.NoError(t, err)
			assert.Contains(t, string(sum), "Event ignored: "+why+".")
		})
	}
}

func TestProcessWritesSummaryAndOutputs(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, _, _ := cmdtest.TestFactory(t, env)
	dir := t.TempDir()
	outputs, summary := filepath.Join(dir, "output"), filepath.Join(dir, "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))

	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(),
		"--max-steps", "5", "--summary-file", summary, "--outputs-file", outputs)
	require.NoError(t, err)
	out, err := os.ReadFile(outputs)
	require.NoError(t, err)
	assert.Equal(t, "stage=architecture\noutcome=waiting\npull-requests=[]\nissue=1\n", string(out))
	sum, err := os.ReadFile(summary)
	require.NoError(t, err)
	s := string(sum)
	assert.Contains(t, s, "earlier step\n### CogWorks · "+testenv.Repo.String()+"#1", "appended, not overwritten")
	assert.Contains(t, s, "**Stage:** `architecture` · **outcome:** `waiting` · **steps:** 2")
	assert.Contains(t, s, "| 1 | `intake` |")
	assert.Contains(t, s, "| **total** |", "cost table")
}

func TestRunReport(t *testing.T) {
	t.Parallel()
	snap := &pipeline.Snapshot{Stage: pipeline.StageIntegration, Artifacts: pipeline.Artifacts{
		SpecPR: 4, InterfacePR: 9,
	}, SubWorkItems: []pipeline.SWI{{SubWorkItem: planner.SubWorkItem{ID: "b"}, PR: 12}, {SubWorkItem: planner.SubWorkItem{ID: "a"}, PR: 11}, {SubWorkItem: planner.SubWorkItem{ID: "c"}}},
		Ledger: pipeline.Ledger{PerStage: map[string]pipeline.Usage{"intake": {Calls: 1, InputTokens: 1000, OutputTokens: 200, CostUSD: 0.0123}}}}
	steps := []engine.Result{{Issue: 3, Stage: "planning", Action: "execute", Outcome: engine.OutcomeAdvanced, Reason: "a | b\nc"}}
	tests := []struct {
		name        string
		r           process.RunReport
		wantOutputs string
		wantMD      []string
	}{
		{
			name:        "advanced with pull requests",
			r:           process.RunReport{Repo: github.Repo{Owner: "o", Name: "r"}, Issue: 3, Results: steps, Snapshot: snap, BudgetUSD: 5},
			wantOutputs: "stage=integration\noutcome=advanced\npull-requests=[4,9,11,12]\nissue=3\n",
			wantMD:      []string{"### CogWorks · o/r#3", "**Pull requests:** #4, #9, #11, #12", `a \| b c`, "$0.0123"},
		},
		{
			name:        "pipeline failed",
			r:           process.RunReport{Issue: 3, Results: steps, Err: &engine.FailedError{Stage: pipeline.StagePlanning, Reason: "budget"}},
			wantOutputs: "stage=planning\noutcome=failed\npull-requests=[]\nissue=3\n",
			wantMD:      []string{"> **Error:** stage planning failed: budget"},
		},
		{
			name:        "infrastructure error",
			r:           process.RunReport{Issue: 3, Err: errors.New("connection refused")},
			wantOutputs: "stage=\noutcome=error\npull-requests=[]\nissue=3\n",
			wantMD:      []string{"**Stage:** `(none)` · **outcome:** `error` · **steps:** 0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantOutputs, tt.r.Outputs())
			md := tt.r.Markdown()
			for _, w := range tt.wantMD {
				assert.Contains(t, md, w)
			}
		})
	}
}
