package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// benchFixture is newFixture for benchmarks.
func benchFixture(b *testing.B, labels ...string) *fixture {
	b.Helper()
	// The simulator's clock stands still, so a benchmark's hundredth
	// write would meet the secondary limit of 80 a minute: these measure
	// the engine's requests, not GitHub's limits.
	env := testenv.New(b, githubsim.WithRelaxed(githubsim.RuleSecondaryRateLimit))
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

// benchStep measures a step, reporting GitHub requests per step, and fails
// when a step makes more than limit requests (issue 8's budget).
func benchStep(b *testing.B, f *fixture, ref Ref, want StepOutcome, limit int64) {
	benchSteps(b, f, ref, want, limit, nil)
}

// benchSteps is benchStep with an untimed clean-up after every step.
func benchSteps(b *testing.B, f *fixture, ref Ref, want StepOutcome, limit int64, after func()) {
	b.Helper()
	ctx := context.Background()
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Step(ctx, f.deps, ref)
		if err != nil || res.Outcome != want {
			b.Fatalf("step = %v, %v; want %s", res.Outcome, err, want)
		}
		requests += res.GitHubRequests
		if after != nil {
			b.StopTimer()
			after()
			b.StartTimer()
		}
		if res.GitHubRequests > limit {
			b.Fatalf("step %d made %d requests, target ≤ %d", i, res.GitHubRequests, limit)
		}
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}

// fromPayload returns f's ref with the issue as an event payload shows it.
func fromPayload(b *testing.B, f *fixture) Ref {
	b.Helper()
	issue, err := f.env.Client.GetIssue(context.Background(), testenv.Repo, f.issue)
	require.NoError(b, err)
	ref := f.ref()
	ref.Known = &issue
	return ref
}

// An event for an issue without cogworks:run: the payload's labels say so.
func BenchmarkNoOpNotTriggered(b *testing.B) {
	f := benchFixture(b)
	benchStep(b, f, fromPayload(b, f), OutcomeNotTriggered, 0)
}

// The same, from cron or by hand: the issue is read.
func BenchmarkNoOpNotTriggeredRead(b *testing.B) {
	f := benchFixture(b)
	benchStep(b, f, f.ref(), OutcomeNotTriggered, 1)
}

func BenchmarkNoOpLocked(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun, pipeline.LabelProcessing)
	_, err := f.env.Client.CreateComment(context.Background(), testenv.Repo, f.issue,
		audit.Format(audit.Comment{Key: claimKey(f.issue, "run-other"), Title: "Processing", Body: "held"}))
	require.NoError(b, err)
	benchStep(b, f, f.ref(), OutcomeBackedOff, 2)
}

func waitingFixture(b *testing.B) *fixture {
	b.Helper()
	f := benchFixture(b, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	for i := 0; i < 2; i++ {
		_, err := Step(context.Background(), f.deps, f.ref())
		require.NoError(b, err)
	}
	return f
}

// A waiting gate, no approval present, triggered by an event: one request
// (the comments, to check the labels against the snapshot).
func BenchmarkNoOpWaiting(b *testing.B) {
	f := waitingFixture(b)
	benchStep(b, f, fromPayload(b, f), OutcomeWaiting, 1)
}

// The same from cron or by hand: the issue is read too.
func BenchmarkNoOpWaitingRead(b *testing.B) {
	f := waitingFixture(b)
	benchStep(b, f, f.ref(), OutcomeWaiting, 2)
}

// BenchmarkActingStepFixedCost measures the engine's own requests in a step
// that acts, with an executor that makes none: lock taken (label, claim,
// comment read), snapshot written, claim turned into the step's record,
// labels written (lock released). Target ≤ 6 when the labels are known
// (event payload, process-all search hit, the previous step of --max-steps).
func BenchmarkActingStepFixedCost(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventProgress, Summary: "more to do"}, nil
	})
	_, err := Step(context.Background(), f.deps, f.ref()) // intake → architecture
	require.NoError(b, err)
	benchSteps(b, f, fromPayload(b, f), OutcomeAdvanced, 6, dropStepRecords(b, f))
}

// BenchmarkActingStepFixedCostRead is the same when the issue must be read.
func BenchmarkActingStepFixedCostRead(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventProgress, Summary: "more to do"}, nil
	})
	_, err := Step(context.Background(), f.deps, f.ref())
	require.NoError(b, err)
	benchSteps(b, f, f.ref(), OutcomeAdvanced, 7, dropStepRecords(b, f))
}

// dropStepRecords deletes the steps' record comments, so that every
// measured step sees the same comment list (past 100 comments listing them
// takes a second page).
func dropStepRecords(b *testing.B, f *fixture) func() {
	return func() {
		for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
			if strings.Contains(c.Body, "/step/") {
				require.NoError(b, f.env.Client.DeleteComment(context.Background(), testenv.Repo, c.ID))
			}
		}
	}
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
		if res.GitHubRequests > 15 {
			b.Fatalf("stage transition made %d requests, target ≤ 15", res.GitHubRequests)
		}
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}

// BenchmarkLaterStepOfARun measures a middle step of a run that holds the
// lock (--max-steps): re-read the comments, write the snapshot (the claim
// is fresh, so no heartbeat). Target ≤ 2 requests of engine overhead.
func BenchmarkLaterStepOfARun(b *testing.B) {
	f := benchFixture(b, pipeline.LabelRun)
	f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventProgress, Summary: "more to do"}, nil
	})
	_, err := Step(context.Background(), f.deps, f.ref()) // intake → architecture
	require.NoError(b, err)
	drop := dropStepRecords(b, f)
	var requests int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		results, err := Run(context.Background(), f.deps, fromPayload(b, f), 3)
		if err != nil || len(results) != 3 {
			b.Fatalf("run = %d results, %v", len(results), err)
		}
		middle := results[1].GitHubRequests
		if middle > 2 {
			b.Fatalf("a later step of a run made %d requests, target ≤ 2", middle)
		}
		requests += middle
		b.StopTimer()
		drop()
		b.StartTimer()
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}
