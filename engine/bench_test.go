package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// benchFixture is newFixture for benchmarks.
func benchFixture(b *testing.B, labels ...string) *fixture {
	b.Helper()
	env := testenv.New(b)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Add a widget counter", "Count widgets.")
	for _, l := range labels {
		env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", l)
	}
	rec := &recorder{}
	execs := map[pipeline.Stage]StageExecutor{}
	for _, s := range pipeline.AllStages() {
		if !s.Terminal() {
			execs[s] = rec.done()
		}
	}
	return &fixture{env: env, issue: n, rec: rec, deps: Deps{
		GitHub: env.Client, Executors: execs, Config: config.Default(), RunID: "run-bench",
		BotLogin: testenv.Bot, Clock: env.Clock.Now,
	}}
}

// benchNoOp measures a step that must not write, reporting GitHub
// requests per step (target ≤ 2, SPEC §16).
func benchNoOp(b *testing.B, f *fixture, want StepOutcome) {
	b.Helper()
	ctx := context.Background()
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Step(ctx, f.deps, f.ref())
		if err != nil || res.Outcome != want {
			b.Fatalf("step = %v, %v; want %s", res.Outcome, err, want)
		}
		requests += res.GitHubRequests
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
	if requests/int64(b.N) > 2 {
		b.Fatalf("no-op step made %d requests, target ≤ 2", requests/int64(b.N))
	}
}

func BenchmarkNoOpNotTriggered(b *testing.B) {
	benchNoOp(b, benchFixture(b), OutcomeNotTriggered)
}

func BenchmarkNoOpLocked(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun, pipeline.LabelProcessing)
	_, err := f.env.Client.CreateComment(context.Background(), testenv.Repo, f.issue,
		audit.Format(audit.Comment{Key: claimKey(f.issue, "run-other"), Title: "Processing", Body: "held"}))
	require.NoError(b, err)
	benchNoOp(b, f, OutcomeBackedOff)
}

func BenchmarkNoOpWaiting(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	for i := 0; i < 2; i++ {
		_, err := Step(context.Background(), f.deps, f.ref())
		require.NoError(b, err)
	}
	benchNoOp(b, f, OutcomeWaiting)
}

// BenchmarkStageTransition measures one step that runs a stage and moves
// to the next (target ≤ 15 requests excluding file commits, ≤ 100 ms).
func BenchmarkStageTransition(b *testing.B) {
	ctx := context.Background()
	var requests int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := benchFixture(b, pipeline.LabelRun)
		// Labels are created once per repository on first use; measure a
		// repository that has them, as every run after the first does.
		other := f.env.Sim.SeedIssue(testenv.Repo.String(), "alice", "warm-up", "")
		f.env.Sim.LabelIssue(testenv.Repo.String(), other, "alice", pipeline.LabelRun)
		_, err := Run(ctx, f.deps, Ref{Repo: testenv.Repo, Issue: other}, 2)
		require.NoError(b, err)
		b.StartTimer()
		// A fresh item: enter intake, run it, auto-proceed into architecture.
		res, err := Step(ctx, f.deps, f.ref())
		if err != nil || res.Outcome != OutcomeAdvanced {
			b.Fatalf("step = %v, %v", res.Outcome, err)
		}
		requests += res.GitHubRequests
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}
