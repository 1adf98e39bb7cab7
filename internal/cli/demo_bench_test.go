package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/cogworks/cogworks/internal/engine"
)

// demoRequestBudget is issue 8's target for the whole demo pipeline (2
// sub-work-items, intake to complete), labels created beforehand by init.
const demoRequestBudget = 150

// BenchmarkDemoPipeline runs `cogworks demo` and reports its GitHub
// requests, steps and comments on the work item; it fails when the
// pipeline needs more than demoRequestBudget requests.
func BenchmarkDemoPipeline(b *testing.B) {
	for i := 0; i < b.N; i++ {
		var out bytes.Buffer
		f := &Factory{IO: IOStreams{Out: &out, ErrOut: &out}, Getenv: func(string) string { return "" }}
		report, cleanup, err := RunDemo(context.Background(), f, &DemoOptions{Listen: "127.0.0.1:0", MaxRounds: 30})
		if err != nil {
			cleanup()
			b.Fatalf("demo: %v\n%s", err, out.String())
		}
		var requests int64
		for _, s := range report.Steps {
			requests += s.GitHubRequests
		}
		cleanup()
		if report.Final != engine.OutcomeComplete {
			b.Fatalf("demo ended %s", report.Final)
		}
		if requests > demoRequestBudget {
			b.Fatalf("demo pipeline made %d GitHub requests, budget %d", requests, demoRequestBudget)
		}
		b.ReportMetric(float64(requests), "requests/pipeline")
		b.ReportMetric(float64(len(report.Steps)), "steps/pipeline")
		b.ReportMetric(float64(report.Comments), "comments/pipeline")
	}
}
