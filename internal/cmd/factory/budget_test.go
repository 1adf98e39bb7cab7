package factory_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// budgetLines returns the "| budget |" rows of every cost table in text.
func budgetLines(text string) []string {
	var rows []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "| budget |") {
			rows = append(rows, line)
		}
	}
	return rows
}

// TestTinyCostBudgetHaltsThePipelineAndEveryViewShowsOneBudget runs the
// demo with a $0.03 budget and 1,024 output tokens per call: a few calls
// fit, then the gateway refuses one, the pipeline fails with the cost
// report, and the demo's table, the issue's comments, `status` and
// `cost-report` all show the same budget, the repository config's.
func TestTinyCostBudgetHaltsThePipelineAndEveryViewShowsOneBudget(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
	edit := func(files map[string]string) {
		c := files[config.Path]
		c = strings.Replace(c, "pipeline_max_cost_usd = 5.0", "pipeline_max_cost_usd = 0.03", 1)
		c = strings.Replace(c, "context_window = 100000", "context_window = 100000\nmax_output_tokens = 1024", 1)
		files[config.Path] = c
	}
	report, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 10, EditFiles: edit})
	t.Cleanup(cleanup)
	require.Error(t, err, "the budget halts the demo")
	t.Log(out.String())
	assert.Equal(t, engine.OutcomeFailed, report.Final)
	assert.Equal(t, pipeline.StageFailed, report.Snapshot.Stage)
	require.NotNil(t, report.Snapshot.Failure)
	assert.Contains(t, report.Snapshot.Failure.Reason, "budget")

	var spent float64
	for _, u := range report.Snapshot.Ledger.PerStage {
		spent += u.CostUSD
	}
	assert.Positive(t, spent, "calls before the halt were priced")
	assert.LessOrEqual(t, spent, 0.03, "never over budget")

	const want = "| budget | | | | 400,000 | $0.0300 |"
	demoRows := budgetLines(out.String())
	require.NotEmpty(t, demoRows, out.String())
	assert.Equal(t, want, demoRows[len(demoRows)-1], "demo")

	var comments strings.Builder
	for _, c := range report.Sim.Comments(report.Repo.String(), report.Issue) {
		comments.WriteString(c.Body + "\n")
	}
	assert.Contains(t, comments.String(), "budget exceeded")
	commentRows := budgetLines(comments.String())
	require.GreaterOrEqual(t, len(commentRows), 2, "status comment and failure report")
	for _, row := range commentRows {
		assert.Equal(t, want, row, "issue comments")
	}

	var cliOut bytes.Buffer
	cf := &factory.Factory{IO: factory.IOStreams{Out: &cliOut, ErrOut: &cliOut}, Getenv: func(string) string { return "" }, GitHub: report.Factory.GitHub}
	for _, cmd := range [][]string{
		{"status", "--repo", report.Repo.String(), "--issue", "1", "--workspace", report.Workspace},
		{"cost-report", "--repo", report.Repo.String(), "--issue", "1", "--workspace", report.Workspace},
	} {
		cliOut.Reset()
		require.NoError(t, cmdtest.Execute(t, cf, cmd...))
		assert.Equal(t, []string{want}, budgetLines(cliOut.String()), cmd[0])
		assert.Contains(t, cliOut.String(), "price: scripted-demo at $3 / $15 per million input / output tokens", cmd[0])
	}
}

func TestWriteCostReportShowsEachSubWorkItemsCost(t *testing.T) {
	t.Parallel()
	snap := pipeline.NewSnapshot("acme/widgets", 1)
	snap.Ledger.PerStage = map[string]pipeline.Usage{"code-generation": {Calls: 2, InputTokens: 100, OutputTokens: 20}}
	snap.SubWorkItems = []pipeline.SWI{
		{SubWorkItem: planner.SubWorkItem{ID: "swi-1"}, Usage: pipeline.Usage{Calls: 2, InputTokens: 100, OutputTokens: 20}},
		{SubWorkItem: planner.SubWorkItem{ID: "swi-2"}},
	}
	var out bytes.Buffer
	require.NoError(t, factory.WriteCostReport(&out, snap, llm.PipelineBudget{MaxTokens: 1000}))
	assert.Contains(t, out.String(), "| SWI `swi-1` | 2 | 100 | 20 | 120 |", "the record's cost has its row")
	assert.NotContains(t, out.String(), "swi-2", "a SWI that made no call has none")
}
