//go:build e2e

package democmd_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
)

// Issue 21's request budgets for whole pipelines, intake to complete, the
// labels created beforehand by init: the demo's two sub-work-items, and a
// plan of one. A real repository costs about 150 requests for one
// sub-work-item before these targets. The demo's was 120 until the
// default branch's watch of the design (issue 28, point 5) added one read
// of the default branch's head at planning and one compare per per-SWI
// step (119 → 128 measured; 7 of the 8 compares are 304s from the ETag
// cache, which GitHub does not count against the rate limit).
const (
	demoRequestBudget   = 128
	oneSWIRequestBudget = 90
)

// runDemoPipeline runs `cogworks demo` and returns its GitHub requests (the
// steps' own, as the engine counts them), steps and comments on the work
// item.
func runDemoPipeline(tb testing.TB, oneSWI bool) (requests int64, steps, comments int) {
	tb.Helper()
	var out bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
	report, cleanup, err := democmd.RunDemo(context.Background(), f, &democmd.DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30, OneSWI: oneSWI})
	defer cleanup()
	require.NoError(tb, err, out.String())
	require.Equal(tb, engine.OutcomeComplete, report.Final, out.String())
	require.Len(tb, report.Snapshot.SubWorkItems, map[bool]int{true: 1, false: 2}[oneSWI])
	for _, s := range report.Steps {
		requests += s.GitHubRequests
	}
	return requests, len(report.Steps), report.Comments
}

// BenchmarkDemoPipeline runs `cogworks demo` and reports its GitHub
// requests, steps and comments on the work item; it fails when the
// pipeline needs more than demoRequestBudget requests.
func BenchmarkDemoPipeline(b *testing.B) {
	for i := 0; i < b.N; i++ {
		requests, steps, comments := runDemoPipeline(b, false)
		if requests > demoRequestBudget {
			b.Fatalf("demo pipeline made %d GitHub requests, budget %d", requests, demoRequestBudget)
		}
		b.ReportMetric(float64(requests), "requests/pipeline")
		b.ReportMetric(float64(steps), "steps/pipeline")
		b.ReportMetric(float64(comments), "comments/pipeline")
	}
}

// BenchmarkOneSWIPipeline is the demo with a plan of one sub-work-item; it
// fails above oneSWIRequestBudget requests.
func BenchmarkOneSWIPipeline(b *testing.B) {
	for i := 0; i < b.N; i++ {
		requests, steps, comments := runDemoPipeline(b, true)
		if requests > oneSWIRequestBudget {
			b.Fatalf("one-sub-work-item pipeline made %d GitHub requests, budget %d", requests, oneSWIRequestBudget)
		}
		b.ReportMetric(float64(requests), "requests/pipeline")
		b.ReportMetric(float64(steps), "steps/pipeline")
		b.ReportMetric(float64(comments), "comments/pipeline")
	}
}

// TestOneSWIPipelineRequestBudget runs the one-sub-work-item pipeline once
// and holds it to issue 21's budget (the two-item demo's is checked by
// TestDemoPipeline).
func TestOneSWIPipelineRequestBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a whole pipeline with the real Go toolchain")
	}
	t.Parallel()
	requests, steps, _ := runDemoPipeline(t, true)
	t.Logf("one-sub-work-item pipeline: %d requests in %d steps", requests, steps)
	require.LessOrEqual(t, requests, int64(oneSWIRequestBudget), "issue 21's budget for a one-sub-work-item pipeline")
}
