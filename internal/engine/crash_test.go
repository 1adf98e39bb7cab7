package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
)

// artifactExecutors are stage executors that write like real ones: the
// architecture stage commits a spec and opens a PR.
func artifactExecutors(gh *github.Client) map[pipeline.Stage]StageExecutor {
	done := func(_ context.Context, in StageInput) (StageResult, error) {
		return StageResult{Event: pipeline.EventDone, Summary: string(in.Stage) + " done"}, nil
	}
	return map[pipeline.Stage]StageExecutor{
		pipeline.StageIntake: StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
			return StageResult{Event: pipeline.EventDone, Summary: "classified as feature", Changes: []pipeline.Change{
				pipeline.SetClassification{Classification: classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{"widgets"}}}}}, nil
		}),
		pipeline.StageArchitecture: StageExecutorFunc(func(ctx context.Context, in StageInput) (StageResult, error) {
			branch := fmt.Sprintf("cogworks/%d/spec", in.Issue.Number)
			if _, _, err := idem.WriteFiles(ctx, gh, in.Repo, idem.Commit{Branch: branch, From: "main",
				Message: "Add specification", Files: map[string]string{"docs/specs/spec.md": "# Spec\n"}}); err != nil {
				return StageResult{}, err
			}
			pr, _, err := idem.FindOrCreatePull(ctx, gh, in.Repo, in.BotLogin, github.NewPull{Title: "Spec", Head: branch, Base: "main", Body: "Refs #1"})
			if err != nil {
				return StageResult{}, err
			}
			return StageResult{Event: pipeline.EventDone, Summary: "spec PR opened",
				Changes: []pipeline.Change{pipeline.SetSpec{Branch: branch, PR: pr.Number}}}, nil
		}),
		pipeline.StageInterfaceDesign: StageExecutorFunc(done),
	}
}

// finalState is what must be identical however many crashes happened.
type finalState struct {
	Labels   []string
	Keys     map[string]int
	Pulls    []string
	Files    map[string]string
	Stage    pipeline.Stage
	Gate     string
	SpecPR   int
	Approved int
}

func captureState(t *testing.T, env *testenv.Env, issue int) finalState {
	t.Helper()
	repo := testenv.Repo.String()
	st := finalState{Keys: map[string]int{}}
	st.Labels = append(st.Labels, env.Sim.Labels(repo, issue)...)
	sort.Strings(st.Labels)
	for _, c := range env.Sim.Comments(repo, issue) {
		key, ok := audit.FindKey(c.Body)
		if !ok {
			key = "(unkeyed)"
		}
		if strings.HasPrefix(key, fmt.Sprintf("%d/step/", issue)) {
			// Step records belong to the runs that made them; a crash
			// between the snapshot and the record loses one line of the
			// audit trail, never state.
			st.Keys[fmt.Sprintf("%d/step/*", issue)] = 1
			continue
		}
		st.Keys[key]++
		if key == audit.StatusKey(issue) {
			snap, found, err := pipeline.ParseSnapshot(c.Body)
			require.NoError(t, err)
			require.True(t, found)
			st.Stage, st.SpecPR, st.Approved = snap.Stage, snap.Artifacts.SpecPR, len(snap.Approvals)
			if snap.Gate != nil {
				st.Gate = string(snap.Gate.Stage)
			}
		}
	}
	for _, pr := range env.Sim.Pulls(repo) {
		st.Pulls = append(st.Pulls, fmt.Sprintf("%s→%s %s", pr.Head, pr.Base, pr.State))
	}
	sort.Strings(st.Pulls)
	st.Files = env.Sim.BranchFiles(repo, fmt.Sprintf("cogworks/%d/spec", issue))
	return st
}

// runScenario drives a work item to the architecture gate, approves it and
// runs to the interface-design gate, using client gh.
func runScenario(t *testing.T, env *testenv.Env, gh *github.Client, issue int, runID string) error {
	t.Helper()
	cfg := config.Default()
	cfg.Gates["interface-design"] = config.HumanGated
	deps := Deps{GitHub: gh, Executors: artifactExecutors(gh), Config: cfg, RunID: runID, BotLogin: testenv.Bot, Clock: env.Clock.Now}
	ref := Ref{Repo: testenv.Repo, Issue: issue}
	if _, err := Run(context.Background(), deps, ref, 10); err != nil {
		return err
	}
	if snap := captureState(t, env, issue); snap.Gate == string(pipeline.StageArchitecture) &&
		!containsLabel(env.Sim.Labels(testenv.Repo.String(), issue), pipeline.LabelApprove) && snap.Approved == 0 {
		env.Sim.LabelIssue(testenv.Repo.String(), issue, "alice", pipeline.LabelApprove)
	}
	_, err := Run(context.Background(), deps, ref, 10)
	return err
}

func containsLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
}

func newCrashEnv(t *testing.T) (*testenv.Env, int) {
	t.Helper()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Add a widget counter", "Count widgets.")
	require.True(t, env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun))
	return env, n
}

func TestCrashAtEveryWriteRecoversToSameState(t *testing.T) {
	env, n := newCrashEnv(t)
	counter := &testkit.CrashTransport{K: -1}
	require.NoError(t, runScenario(t, env, env.NewClient(t, counter), n, "run-clean"))
	want := captureState(t, env, n)
	require.Equal(t, pipeline.StageInterfaceDesign, want.Stage, "uninterrupted run reaches the interface-design gate")
	require.Equal(t, string(pipeline.StageInterfaceDesign), want.Gate)
	totalWrites := counter.Writes()
	require.Greater(t, totalWrites, int64(10))

	for _, after := range []bool{false, true} {
		for k := int64(1); k <= totalWrites; k++ {
			name := fmt.Sprintf("crash before write %d", k)
			if after {
				name = fmt.Sprintf("crash after write %d", k)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				env, n := newCrashEnv(t)
				crashing := env.NewClient(t, &testkit.CrashTransport{K: k, After: after})
				_ = runScenario(t, env, crashing, n, "run-crash") // may fail: that is the point
				// Later, a new process (after the stale-lock timeout) re-runs.
				env.Clock.Advance(31 * time.Minute)
				healthy := env.NewClient(t, nil)
				require.NoError(t, runScenario(t, env, healthy, n, "run-rerun"))
				got := captureState(t, env, n)
				assert.Equal(t, want, got)
				assert.NotContains(t, got.Labels, pipeline.LabelProcessing, "no lock left behind")
			})
		}
	}
}

// TestLostResponseLeavesNoLock: the k-th write lands on GitHub but its
// response is lost (a 502 after the write) and the process lives on. The
// run must find what it wrote by its key and release the lock itself, so
// an immediate re-run — the clock NOT advanced past lock_timeout — acts
// and reaches the same state.
func TestLostResponseLeavesNoLock(t *testing.T) {
	env, n := newCrashEnv(t)
	counter := &testkit.CrashTransport{K: -1}
	require.NoError(t, runScenario(t, env, env.NewClient(t, counter), n, "run-clean"))
	want := captureState(t, env, n)
	totalWrites := counter.Writes()
	for k := int64(1); k <= totalWrites; k++ {
		t.Run(fmt.Sprintf("response of write %d lost", k), func(t *testing.T) {
			t.Parallel()
			env, n := newCrashEnv(t)
			lossy := env.NewClient(t, &testkit.CrashTransport{K: k, After: true})
			_ = runScenario(t, env, lossy, n, "run-lossy") // may fail transiently
			labels := env.Sim.Labels(testenv.Repo.String(), n)
			assert.NotContains(t, labels, pipeline.LabelProcessing, "the living run released the lock")
			assert.Zero(t, liveClaims(env, n), "no claim left behind")
			env.Clock.Advance(time.Minute) // well inside lock_timeout
			require.NoError(t, runScenario(t, env, env.NewClient(t, nil), n, "run-rerun"))
			got := captureState(t, env, n)
			assert.Equal(t, want, got)
			assert.NotContains(t, got.Labels, pipeline.LabelProcessing)
		})
	}
}

// liveClaims counts the lock-claim comments on an issue.
func liveClaims(env *testenv.Env, n int) int {
	claims := 0
	for _, c := range env.Sim.Comments(testenv.Repo.String(), n) {
		if strings.Contains(c.Body, "cogworks:key="+claimKeyPrefix(n)) {
			claims++
		}
	}
	return claims
}

func TestAssertPSM005_ConcurrentInvocationsExactlyOneActs(t *testing.T) {
	t.Parallel()
	for round := 0; round < 5; round++ {
		env, n := newCrashEnv(t)
		// 20 invocations in one frozen instant are a burst GitHub's
		// secondary limit would slow down; this test is about the lock.
		env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
		const runs = 20
		var calls atomic.Int32
		var finished atomic.Int32
		othersDone := make(chan struct{})
		// The acting run holds the lock until every other invocation has
		// returned: a barrier, not a timing assumption. The timeout only
		// keeps a broken lock (two actors) from hanging the test.
		hold := StageExecutorFunc(func(_ context.Context, in StageInput) (StageResult, error) {
			calls.Add(1)
			select {
			case <-othersDone:
			case <-time.After(10 * time.Second):
			}
			return StageResult{Event: pipeline.EventProgress}, nil
		})
		start := make(chan struct{})
		var wg sync.WaitGroup
		outcomes := make([]StepOutcome, runs)
		for i := 0; i < runs; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				deps := Deps{GitHub: env.NewClient(t, nil), Executors: map[pipeline.Stage]StageExecutor{pipeline.StageIntake: hold},
					Config: config.Default(), RunID: fmt.Sprintf("run-%d", i), BotLogin: testenv.Bot, Clock: env.Clock.Now}
				<-start
				res, err := Step(context.Background(), deps, Ref{Repo: testenv.Repo, Issue: n})
				assert.NoError(t, err)
				outcomes[i] = res.Outcome
				if res.Outcome != OutcomeAdvanced && finished.Add(1) == runs-1 {
					close(othersDone)
				}
			}(i)
		}
		close(start)
		wg.Wait()
		assert.Equal(t, int32(1), calls.Load(), "round %d: exactly one invocation acts; outcomes %v", round, outcomes)
		acted := 0
		for _, o := range outcomes {
			if o == OutcomeAdvanced {
				acted++
			}
		}
		assert.Equal(t, 1, acted)
		assert.NotContains(t, env.Sim.Labels(testenv.Repo.String(), n), pipeline.LabelProcessing)
		assert.Zero(t, liveClaims(env, n), "every claim withdrawn or released")
	}
}
