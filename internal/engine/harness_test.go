package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// recorder is a test executor that counts its invocations per stage.
type recorder struct {
	mu    sync.Mutex
	calls map[pipeline.Stage]int
}

func (r *recorder) count(s pipeline.Stage) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[s]
}

func (r *recorder) note(s pipeline.Stage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[pipeline.Stage]int{}
	}
	r.calls[s]++
}

// done returns an executor that finishes its stage with a summary.
func (r *recorder) done() StageExecutor {
	return StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
		r.note(in.Stage)
		return StageResult{Event: pipeline.EventDone, Summary: fmt.Sprintf("%s finished", in.Stage)}, nil
	})
}

// fixture is an issue on the simulator plus engine deps.
type fixture struct {
	env   *testenv.Env
	issue int
	rec   *recorder
	deps  Deps
}

func newFixture(t *testing.T, labels ...string) *fixture {
	t.Helper()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Add a widget counter", "Count widgets per hour.")
	for _, l := range labels {
		require.True(t, env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", l))
	}
	rec := &recorder{}
	execs := map[pipeline.Stage]StageExecutor{}
	for _, s := range pipeline.AllStages() {
		if !s.Terminal() {
			execs[s] = rec.done()
		}
	}
	cfg := config.Default()
	cfg.Gates["architecture"] = config.AutoProceed
	return &fixture{env: env, issue: n, rec: rec, deps: Deps{
		GitHub: env.Client, Executors: execs, Config: cfg, RunID: "run-1",
		BotLogin: testenv.Bot, StateKey: testStateKey(), Clock: env.Clock.Now,
	}}
}

// testStateKey signs the fixture's state blocks and lock claims.
func testStateKey() statesig.Key { return statesig.Key("engine-test-state-key") }

func (f *fixture) ref() Ref { return Ref{Repo: testenv.Repo, Issue: f.issue} }

func (f *fixture) step(t *testing.T) Result {
	t.Helper()
	res, err := Step(context.Background(), f.deps, f.ref())
	require.NoError(t, err)
	return res
}

func (f *fixture) labels() []string { return f.env.Sim.Labels(testenv.Repo.String(), f.issue) }

func (f *fixture) snapshot(t *testing.T) pipeline.Snapshot {
	t.Helper()
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if s, ok, err := pipeline.ParseSnapshot(c.Body); ok {
			require.NoError(t, err)
			return s
		}
	}
	t.Fatalf("no snapshot on #%d", f.issue)
	return pipeline.Snapshot{}
}

// writes counts non-GET requests the simulator saw.
func writes(sim *githubsim.Server) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Method != "GET" {
			n++
		}
	}
	return n
}

// commentsWithKey counts comments carrying a key marker.
func commentsWithKey(sim *githubsim.Server, issue int, key string) int {
	comments := sim.Comments(testenv.Repo.String(), issue)
	n := 0
	for _, c := range comments {
		if _, ok := idem.FindComment([]github.Comment{{Body: c.Body, User: c.Author}}, testenv.Bot, key); ok {
			n++
		}
	}
	return n
}

func isFailed(err error) bool {
	var fe *FailedError
	return errors.As(err, &fe)
}
