package scenario

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelectChange(t *testing.T) {
	t.Parallel()
	withRun := func(id string, pkgs []string, to, content string, covers ...string) Scenario {
		sc := testScenario(id, 1, covers...)
		sc.Run.Packages = pkgs
		sc.Run.Overlay = []Overlay{{From: ".cogworks/scenarios/" + id + "_test.go", To: to, Content: content}}
		return sc
	}
	all := []Scenario{
		withRun("BY-IFACE", []string{"./other"}, "other/zz_test.go", "", "IF-1"),
		withRun("BY-PKG", []string{"./telemetry"}, "elsewhere/zz_test.go", ""),
		withRun("BY-TREE", []string{"./internal/..."}, "x/zz_test.go", ""),
		withRun("BY-OVERLAY", nil, "telemetry/zz_test.go", ""),
		withRun("BY-SYMBOL", []string{"./app"}, "app/zz_test.go", "s := telemetry.NewSink()"),
		withRun("UNRELATED", []string{"./billing"}, "billing/zz_test.go", "NewSinkhole()", "IF-9"),
	}
	tests := []struct {
		name   string
		change Change
		want   []string
	}{
		{"interface", Change{Interfaces: []string{"IF-1"}}, []string{"BY-IFACE"}},
		{"changed package", Change{Paths: []string{"telemetry/publish.go"}}, []string{"BY-PKG", "BY-OVERLAY"}},
		{"package tree", Change{Paths: []string{"internal/a/b.go"}}, []string{"BY-TREE"}},
		{"exported symbol, whole word only", Change{Paths: []string{"lib/sink.go"}, Symbols: []string{"NewSink"}}, []string{"BY-SYMBOL"}},
		{"nothing touched", Change{Paths: []string{"docs/x.md"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sel := SelectChange(all, tt.change)
			var got []string
			for _, sc := range sel.Selected {
				got = append(got, sc.ID)
			}
			assert.Equal(t, tt.want, got)
			assert.Len(t, sel.Ran, len(tt.want))
			assert.Len(t, sel.NotApplied, len(all)-len(tt.want), "every other scenario says why it did not apply")
		})
	}
}

// TestTrajectoryWithTestProblemsIsNotSatisfied: a run whose tests prove
// nothing (here: the scenario's test did not run) fails the trajectory
// even though every criterion (exit code 0) holds.
func TestTrajectoryWithTestProblemsIsNotSatisfied(t *testing.T) {
	t.Parallel()
	sc := testScenario("S1", 1, "I1")
	sim := &fakeSim{script: func(int, Run) (Observation, error) {
		obs := okObs
		obs.Problems = []string{"planned tests did not run and pass: pkg.TestScenario"}
		return obs, nil
	}}
	res, err := Validate(context.Background(), cfg(0.95), []Scenario{sc}, Harness{Sim: sim})
	require.NoError(t, err)
	assert.False(t, res.Passed)
	assert.Contains(t, res.Feedback(), "test_verdict: planned tests did not run and pass: pkg.TestScenario")
}
