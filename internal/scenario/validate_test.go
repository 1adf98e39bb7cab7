package scenario

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
)

// fakeSim records every call and answers from a script indexed by call
// number (1-based). It mutates the overlay it receives to prove that each
// trajectory gets a fresh copy.
type fakeSim struct {
	log    *[]string
	script func(call int, run Run) (Observation, error)
	calls  []Run
}

func (f *fakeSim) Simulate(_ context.Context, run Run) (Observation, error) {
	snapshot := Run{Packages: append([]string(nil), run.Packages...), Filter: run.Filter, Overlay: map[string]string{}}
	for k, v := range run.Overlay {
		snapshot.Overlay[k] = v
	}
	f.calls = append(f.calls, snapshot)
	run.Overlay["leaked_state.txt"] = "from an earlier trajectory"
	if len(run.Packages) > 0 {
		run.Packages[0] = "mutated"
	}
	if f.log != nil {
		*f.log = append(*f.log, "simulate "+run.Filter)
	}
	return f.script(len(f.calls), run)
}

var (
	okObs   = Observation{ExitCode: 0, Output: "PASS\nok  \tpkg\t0.01s\n", Tests: []TestResult{{Name: "TestScenario", Passed: true}}}
	failObs = Observation{ExitCode: 1, Output: "--- FAIL: TestScenario\nFAIL\n", Tests: []TestResult{{Name: "TestScenario", Passed: false}}}
)

// failOn returns a script that fails the listed calls and passes the others.
func failOn(calls ...int) func(int, Run) (Observation, error) {
	return func(call int, _ Run) (Observation, error) {
		for _, c := range calls {
			if c == call {
				return failObs, nil
			}
		}
		return okObs, nil
	}
}

func testScenario(id string, trajectories int, covers ...string) Scenario {
	return Scenario{
		ID:           id,
		Description:  "SECRET-DESCRIPTION of " + id,
		Covers:       covers,
		Trajectories: trajectories,
		Run: RunSpec{
			Packages: []string{"./pkg"},
			Filter:   id,
			Overlay:  []Overlay{{From: ".cogworks/scenarios/x_test.go", To: "pkg/zz_scenario_test.go", Content: "HOLDOUT-TEST-CODE"}},
		},
		Acceptance: []Criterion{
			{Check: "exit_code", Params: map[string]any{"equals": 0}, Message: "tests must pass"},
			{Check: "content_includes", Params: map[string]any{"patterns": []any{"ok"}}},
		},
		Failure: []Criterion{{Check: "content_matches", Params: map[string]any{"pattern": "(?i)panic|DATA RACE"}, Message: "no panics or races"}},
	}
}

func cfg(threshold float64) Config {
	return Config{Threshold: threshold, DefaultTrajectories: 10}
}

func TestAssertSCEN001_ApplicableScenariosSelected(t *testing.T) {
	all := []Scenario{
		testScenario("S1", 1, "I1"),
		testScenario("S2", 1, "I1", "I9"),
		testScenario("S3", 1, "I1"),
		testScenario("S4", 1, "I2"),
		testScenario("S5", 1, "I3"),
		testScenario("S6", 1, "I4", "I5"),
	}
	selected := Select(all, []string{"I1", "I2"})
	var ids []string
	for _, s := range selected {
		ids = append(ids, s.ID)
	}
	assert.Equal(t, []string{"S1", "S2", "S3", "S4"}, ids)

	sim := &fakeSim{script: failOn()}
	res, err := Validate(context.Background(), cfg(0.95), selected, Harness{Sim: sim})
	require.NoError(t, err)
	var ran []string
	for _, c := range sim.calls {
		ran = append(ran, c.Filter)
	}
	assert.Equal(t, []string{"S1", "S2", "S3", "S4"}, ran, "only the selected scenarios run")
	assert.Len(t, res.Scenarios, 4)
}

func TestAssertSCEN003_ExactTrajectoriesEachFresh(t *testing.T) {
	t.Run("scenario value", func(t *testing.T) {
		sim := &fakeSim{script: failOn()}
		sc := testScenario("S", 10, "I1")
		res, err := Validate(context.Background(), Config{Threshold: 0.9, DefaultTrajectories: 3}, []Scenario{sc}, Harness{Sim: sim})
		require.NoError(t, err)
		require.Len(t, sim.calls, 10, "exactly the scenario's trajectories, overriding the default")
		for i, call := range sim.calls {
			assert.Equal(t, map[string]string{"pkg/zz_scenario_test.go": "HOLDOUT-TEST-CODE"}, call.Overlay, "trajectory %d starts fresh", i+1)
			assert.Equal(t, []string{"./pkg"}, call.Packages, "trajectory %d starts fresh", i+1)
		}
		assert.Equal(t, 10, res.Scenarios[0].Trajectories)
		assert.Len(t, res.Scenarios[0].Runs, 10)
		assert.Equal(t, []string{"./pkg"}, sc.Run.Packages, "the scenario itself is never mutated")
	})
	t.Run("configured default", func(t *testing.T) {
		sim := &fakeSim{script: failOn()}
		_, err := Validate(context.Background(), Config{Threshold: 0.9, DefaultTrajectories: 4}, []Scenario{testScenario("S", 0, "I1")}, Harness{Sim: sim})
		require.NoError(t, err)
		assert.Len(t, sim.calls, 4)
	})
}

func TestAssertSCEN004_SatisfactionScore(t *testing.T) {
	sim := &fakeSim{script: failOn(7)}
	res, err := Validate(context.Background(), cfg(0.5), []Scenario{testScenario("S", 10, "I1")}, Harness{Sim: sim})
	require.NoError(t, err)
	sr := res.Scenarios[0]
	assert.Equal(t, 0.9, sr.Score)
	assert.Equal(t, 9, sr.Satisfied)
	assert.Equal(t, 10, sr.Trajectories)
	assert.False(t, sr.Runs[6].Satisfied)
	assert.Equal(t, 7, sr.Runs[6].Index)
	assert.Equal(t, []string{
		"exit_code (tests must pass): exit code 1, want 0 — trajectory 7 of 10",
		`content_includes: output is missing "ok" — trajectory 7 of 10`,
	}, sr.Failures)
	assert.Equal(t, []string{"TestScenario"}, sr.FailedTests)

	t.Run("overall is trajectory-weighted across scenarios", func(t *testing.T) {
		sim := &fakeSim{script: failOn(4)}
		res, err := Validate(context.Background(), cfg(0.5), []Scenario{testScenario("A", 3, "I"), testScenario("B", 1, "I")}, Harness{Sim: sim})
		require.NoError(t, err)
		assert.Equal(t, 1.0, res.Scenarios[0].Score)
		assert.Equal(t, 0.0, res.Scenarios[1].Score)
		assert.Equal(t, 0.75, res.Overall, "3 of 4 trajectories, not the mean of 1.0 and 0.0")
		assert.Equal(t, 3, res.Satisfied)
		assert.Equal(t, 4, res.Total)
	})
}

func TestAssertSCEN005_ThresholdMetPasses(t *testing.T) {
	sim := &fakeSim{script: failOn(13)}
	res, err := Validate(context.Background(), cfg(0.95), []Scenario{testScenario("S", 25, "I1")}, Harness{Sim: sim})
	require.NoError(t, err)
	assert.Equal(t, 0.96, res.Overall)
	assert.True(t, res.Passed)
	assert.Empty(t, res.Feedback())

	t.Run("exactly at threshold passes", func(t *testing.T) {
		sim := &fakeSim{script: failOn(20)}
		res, err := Validate(context.Background(), cfg(0.95), []Scenario{testScenario("S", 20, "I1")}, Harness{Sim: sim})
		require.NoError(t, err)
		assert.Equal(t, 0.95, res.Overall)
		assert.True(t, res.Passed)
	})
}

func TestAssertSCEN006_BelowThresholdFailsWithFeedback(t *testing.T) {
	sim := &fakeSim{script: failOn(5, 17)}
	res, err := Validate(context.Background(), cfg(0.95), []Scenario{testScenario("SCN-A", 25, "I1"), testScenario("SCN-B", 25, "I2")}, Harness{Sim: sim})
	require.NoError(t, err)
	assert.Equal(t, 0.96, res.Overall, "2 of 50 trajectories failed")

	sim = &fakeSim{script: failOn(3, 9, 17, 25+21)}
	res, err = Validate(context.Background(), cfg(0.95), []Scenario{testScenario("SCN-A", 25, "I1"), testScenario("SCN-B", 25, "I2")}, Harness{Sim: sim})
	require.NoError(t, err)
	assert.Equal(t, 0.92, res.Overall)
	assert.False(t, res.Passed)
	assert.Empty(t, res.FailureHits)

	fb := res.Feedback()
	assert.Contains(t, fb, "Overall satisfaction 0.92 (46 of 50 trajectories) is below the required 0.95.")
	assert.Contains(t, fb, "Scenario SCN-A: 22 of 25 trajectories satisfied (score 0.88).")
	assert.Contains(t, fb, "- exit_code (tests must pass): exit code 1, want 0 — trajectories 3, 9, 17 of 25")
	assert.Contains(t, fb, "Scenario SCN-B: 24 of 25 trajectories satisfied (score 0.96).")
	assert.Contains(t, fb, "- failing tests: TestScenario")
	for _, secret := range []string{"HOLDOUT-TEST-CODE", "SECRET-DESCRIPTION", "x_test.go", "zz_scenario_test.go"} {
		assert.NotContains(t, fb, secret, "feedback must not leak holdout material")
	}
}

func TestAssertSCEN007_FailureCriterionOverridesScore(t *testing.T) {
	script := func(call int, _ Run) (Observation, error) {
		switch call {
		case 10:
			return failObs, nil
		case 31:
			obs := okObs
			obs.Output += "panic: runtime error: index out of range\n"
			return obs, nil
		}
		return okObs, nil
	}
	res, err := Validate(context.Background(), cfg(0.95), []Scenario{testScenario("S", 50, "I1")}, Harness{Sim: &fakeSim{script: script}})
	require.NoError(t, err)
	assert.Equal(t, 0.98, res.Overall, "the panicking trajectory still satisfies acceptance")
	assert.False(t, res.Passed)
	require.Len(t, res.FailureHits, 1)
	assert.Equal(t, `S trajectory 31/50: failure criterion content_matches hit: output matches "(?i)panic|DATA RACE" (no panics or races)`, res.FailureHits[0])
	assert.Contains(t, res.Feedback(), "Explicit failure criteria were hit")

	t.Run("skipped failure criterion is not a hit", func(t *testing.T) {
		sc := testScenario("S", 2, "I1")
		sc.Failure[0].When = map[string]any{"test_ran": "TestNeverRuns"}
		sim := &fakeSim{script: func(int, Run) (Observation, error) {
			obs := okObs
			obs.Output += "panic"
			return obs, nil
		}}
		res, err := Validate(context.Background(), cfg(0.95), []Scenario{sc}, Harness{Sim: sim})
		require.NoError(t, err)
		assert.True(t, res.Passed)
		assert.True(t, res.Scenarios[0].Runs[0].Failure[0].Skipped)
	})
}

func TestAssertSCEN008_NoApplicableScenariosSkips(t *testing.T) {
	all := []Scenario{testScenario("S1", 1, "I1")}
	selected := Select(all, []string{"I7"})
	require.Empty(t, selected)
	sim := &fakeSim{script: failOn()}
	res, err := Validate(context.Background(), cfg(0.95), selected, Harness{Sim: sim})
	require.NoError(t, err)
	assert.True(t, res.Skipped)
	assert.True(t, res.Passed, "skipped is not failed; the pipeline proceeds")
	assert.Empty(t, sim.calls)
	assert.Empty(t, res.Feedback())
	assert.Contains(t, res.AuditMarkdown(), "**Skipped** — no scenario exercises what the change touches.")
}

// fakeTwins records twin lifecycle calls into the shared log.
type fakeTwins struct {
	log      *[]string
	failOn   string // "start", "ready" or "reset": that call fails
	stopErr  error
	stopErrs []error // ctx.Err() seen by each Stop call
}

func (f *fakeTwins) call(op string, t Twin) error {
	*f.log = append(*f.log, op+" "+t.Name)
	if op == f.failOn {
		return fmt.Errorf("%s exploded", op)
	}
	return nil
}
func (f *fakeTwins) Start(_ context.Context, t Twin) error { return f.call("start", t) }
func (f *fakeTwins) Ready(_ context.Context, t Twin) error { return f.call("ready", t) }
func (f *fakeTwins) Reset(_ context.Context, t Twin) error { return f.call("reset", t) }
func (f *fakeTwins) Stop(ctx context.Context, t Twin) error {
	f.stopErrs = append(f.stopErrs, ctx.Err())
	*f.log = append(*f.log, "stop "+t.Name)
	return f.stopErr
}

func TestAssertSCEN009_TwinLifecycle(t *testing.T) {
	withTwin := func(id string, n int) Scenario {
		sc := testScenario(id, n, "I1")
		sc.Twin = "canbus"
		return sc
	}
	defs := map[string]Twin{"canbus": {Name: "canbus", Start: []string{"canbus"}}}

	t.Run("start before first, reset between, stop after last", func(t *testing.T) {
		var log []string
		runner := &fakeTwins{log: &log}
		sim := &fakeSim{log: &log, script: failOn()}
		_, err := Validate(context.Background(), cfg(0.9), []Scenario{withTwin("S", 3), testScenario("P", 1, "I1")}, Harness{Sim: sim, Twins: Twins{Defs: defs, Runner: runner}})
		require.NoError(t, err)
		assert.Equal(t, []string{
			"start canbus", "ready canbus",
			"simulate S", "reset canbus", "simulate S", "reset canbus", "simulate S",
			"stop canbus",
			"simulate P",
		}, log)
	})

	t.Run("stop even when a trajectory fails", func(t *testing.T) {
		var log []string
		runner := &fakeTwins{log: &log}
		boom := errors.New("domain service unavailable")
		sim := &fakeSim{log: &log, script: func(call int, _ Run) (Observation, error) {
			if call == 2 {
				return Observation{}, boom
			}
			return okObs, nil
		}}
		_, err := Validate(context.Background(), cfg(0.9), []Scenario{withTwin("S", 3)}, Harness{Sim: sim, Twins: Twins{Defs: defs, Runner: runner}})
		require.ErrorIs(t, err, boom)
		assert.Contains(t, err.Error(), "scenario S: trajectory 2/3: simulate")
		assert.Equal(t, []string{"start canbus", "ready canbus", "simulate S", "reset canbus", "simulate S", "stop canbus"}, log)
	})

	for _, op := range []string{"start", "ready", "reset"} {
		t.Run("stop even when "+op+" fails", func(t *testing.T) {
			var log []string
			runner := &fakeTwins{log: &log, failOn: op}
			_, err := Validate(context.Background(), cfg(0.9), []Scenario{withTwin("S", 2)}, Harness{Sim: &fakeSim{log: &log, script: failOn()}, Twins: Twins{Defs: defs, Runner: runner}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), op+" exploded")
			assert.Equal(t, "stop canbus", log[len(log)-1])
		})
	}

	t.Run("stop runs with a live context after cancellation", func(t *testing.T) {
		var log []string
		runner := &fakeTwins{log: &log}
		ctx, cancel := context.WithCancel(context.Background())
		sim := &fakeSim{log: &log, script: func(int, Run) (Observation, error) {
			cancel()
			return Observation{}, context.Canceled
		}}
		_, err := Validate(ctx, cfg(0.9), []Scenario{withTwin("S", 2)}, Harness{Sim: sim, Twins: Twins{Defs: defs, Runner: runner}})
		require.ErrorIs(t, err, context.Canceled)
		require.Len(t, runner.stopErrs, 1)
		assert.NoError(t, runner.stopErrs[0], "Stop must not inherit the cancelled context")
	})

	t.Run("stop failure after a clean run is a warning", func(t *testing.T) {
		var log []string
		runner := &fakeTwins{log: &log, stopErr: errors.New("still listening")}
		res, err := Validate(context.Background(), cfg(0.9), []Scenario{withTwin("S", 1)}, Harness{Sim: &fakeSim{script: failOn()}, Twins: Twins{Defs: defs, Runner: runner}})
		require.NoError(t, err)
		assert.True(t, res.Passed)
		assert.Equal(t, []string{"scenario S: still listening"}, res.Warnings)
	})

	t.Run("unregistered twin fails before anything runs", func(t *testing.T) {
		var log []string
		sc := withTwin("S", 1)
		sc.Twin = "ghost"
		sim := &fakeSim{log: &log, script: failOn()}
		_, err := Validate(context.Background(), cfg(0.9), []Scenario{testScenario("P", 1, "I"), sc}, Harness{Sim: sim, Twins: Twins{Defs: defs, Runner: &fakeTwins{log: &log}}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), `twin "ghost" is not registered`)
		assert.Empty(t, log)
	})
}

func TestAssertSCEN010_ResultsInAuditTrail(t *testing.T) {
	sim := &fakeSim{script: func(call int, _ Run) (Observation, error) {
		switch call {
		case 2, 5:
			return failObs, nil
		case 6:
			obs := okObs
			obs.Output += "WARNING: DATA RACE\n"
			return obs, nil
		}
		return okObs, nil
	}}
	history := History{"SCN-A": {true, true, true, true, true, true, true, true, false, true, true, true, true, true, true, true, false}}
	res, err := Validate(context.Background(), Config{Threshold: 0.95, DefaultTrajectories: 4, History: history}, []Scenario{testScenario("SCN-A", 3, "I1"), testScenario("SCN-B", 0, "I1")}, Harness{Sim: sim})
	require.NoError(t, err)
	md := res.AuditMarkdown()
	for _, want := range []string{
		"**Failed** — overall satisfaction **0.71** (5 of 7 trajectories satisfied), threshold 0.95.",
		"| SCN-A | 0.67 | 2 | 3 | Unstable (0.85 over 20 runs) |",
		"| SCN-B | 0.75 | 3 | 4 | Unreliable (0.75 over 4 runs) |",
		"SCN-B trajectory 3/4: failure criterion content_matches hit",
		"- SCN-A: exit_code (tests must pass): exit code 1, want 0 — trajectory 2 of 3",
	} {
		assert.Contains(t, md, want)
	}
	testkit.Golden(t, filepath.Join("testdata", "golden", "audit_failed.md"), md)
	testkit.Golden(t, filepath.Join("testdata", "golden", "feedback_failed.txt"), res.Feedback())
	assert.NotContains(t, md, "HOLDOUT-TEST-CODE")
	assert.Len(t, history["SCN-A"], 17, "the caller's history is not mutated")
}

func TestValidate_LoadedSpecExampleEndToEnd(t *testing.T) {
	all := loadRepo(t)
	selected := Select(all, []string{"SWD-IF-CAN-01"})
	require.Len(t, selected, 2)
	twins, err := LoadTwins(context.Background(), os.DirFS("testdata/repo"), ".cogworks/twins")
	require.NoError(t, err)

	var log []string
	sim := &fakeSim{log: &log, script: func(_ int, run Run) (Observation, error) {
		if run.Filter == "TestScenarioBudget" {
			return Observation{
				ExitCode: 0,
				Output:   "ok bus",
				Tests:    []TestResult{{Name: "TestScenarioBudget", Passed: true}},
				Files:    map[string]string{"report.json": `{"budget":{"used_pct":61}}`},
				Fields:   map[string]any{"frames_sent": 40},
			}, nil
		}
		return okObs, nil
	}}
	judge := &stubJudge{passed: true, score: 1}
	res, err := Validate(context.Background(), Config{Threshold: 0.95, DefaultTrajectories: 2}, selected, Harness{Sim: sim, Twins: Twins{Defs: twins, Runner: &fakeTwins{log: &log}}, Judge: judge})
	require.NoError(t, err)
	assert.True(t, res.Passed, res.Feedback())
	assert.Equal(t, 5, res.Total, "3 trajectories from the TOML example plus the default 2")
	assert.Equal(t, "telemetry/zz_scenario_test.go", firstKey(sim.calls[2].Overlay))
	assert.True(t, strings.HasPrefix(sim.calls[2].Overlay["telemetry/zz_scenario_test.go"], "package telemetry"))
	assert.Empty(t, judge.asked, "the judge only runs when the budget test failed")
	assert.Equal(t, []string{"start canbus", "ready canbus", "simulate TestScenarioBudget", "reset canbus", "simulate TestScenarioBudget", "stop canbus"}, log[:6])
}

func firstKey(m map[string]string) string {
	for k := range m {
		return k
	}
	return ""
}

func TestValidate_Errors(t *testing.T) {
	sc := []Scenario{testScenario("S", 1, "I")}
	tests := []struct {
		name string
		cfg  Config
		sim  Simulator
		want string
	}{
		{"threshold above 1", Config{Threshold: 1.5, DefaultTrajectories: 1}, &fakeSim{script: failOn()}, "threshold must be between 0 and 1"},
		{"no trajectories", Config{Threshold: 0.9}, &fakeSim{script: failOn()}, "trajectories must be at least 1"},
		{"no simulator", cfg(0.9), nil, "no simulator configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Validate(context.Background(), tt.cfg, sc, Harness{Sim: tt.sim})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	t.Run("judge failure is an error, not a score", func(t *testing.T) {
		s := testScenario("S", 1, "I")
		s.Acceptance = append(s.Acceptance, Criterion{Check: "llm_judge", Params: map[string]any{"criteria": "x"}})
		_, err := Validate(context.Background(), cfg(0.9), []Scenario{s}, Harness{Sim: &fakeSim{script: failOn()}, Judge: &stubJudge{err: errors.New("quota")}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "scenario S: trajectory 1: acceptance[2]: criterion llm_judge: llm judge: quota")
	})
}
