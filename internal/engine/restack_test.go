package engine

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// fakeRestacker stands in for stages/restack.Step.
type fakeRestacker struct {
	idle  bool
	out   RestackOutcome
	err   error
	calls int
	item  int
	// items are the work items Items lists.
	items []int
}

func (f *fakeRestacker) Pending(context.Context, StageInput) (bool, string, error) {
	if f.idle {
		return false, "nothing sits on a merged branch", nil
	}
	return true, "", nil
}

func (f *fakeRestacker) Items(context.Context, StageInput) ([]int, error) {
	return f.items, nil
}

func (f *fakeRestacker) Restack(_ context.Context, in StageInput) (RestackOutcome, error) {
	f.calls++
	f.item = in.Issue.Number
	return f.out, f.err
}

// TestRestackRunsUnderTheLock: a restack takes the work item's lock,
// hands the restacker the item, releases the lock on every path and
// leaves the stage and its gate alone; a stopped pipeline is not
// restacked and costs no write.
func TestRestackRunsUnderTheLock(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rs      fakeRestacker
		outcome StepOutcome
		errSub  string
	}{
		{"retargeted and updated", fakeRestacker{out: RestackOutcome{Retargeted: map[int]string{9: "main"}, Updated: []int{9}}}, OutcomeAdvanced, ""},
		{"up to date", fakeRestacker{}, OutcomeNotTriggered, ""},
		{"GitHub fails", fakeRestacker{err: errors.New("update-branch broke")}, "", "update-branch broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pipeline.LabelRun)
			f.deps.Config.Gates["intake"] = config.HumanGated
			f.step(t)
			before := f.snapshot(t)
			rs := tt.rs
			f.deps.Restacker = &rs
			w := writes(f.env.Sim)
			res, err := Restack(context.Background(), f.deps, Ref{Repo: testenv.Repo, Issue: f.issue})
			if tt.errSub != "" {
				require.ErrorContains(t, err, tt.errSub)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.outcome, res.Outcome, res.Reason)
			}
			assert.Equal(t, ActionRestack, res.Action)
			assert.Equal(t, 1, rs.calls)
			assert.Equal(t, f.issue, rs.item)
			assert.Greater(t, writes(f.env.Sim), w, "the lock is taken")
			assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
			after := f.snapshot(t)
			assert.Equal(t, before.Stage, after.Stage)
			assert.Equal(t, before.Gate.Stage, after.Gate.Stage)
		})
	}

	// Nothing stale: no lock, no write.
	idle := newFixture(t, pipeline.LabelRun)
	idle.step(t)
	irs := &fakeRestacker{idle: true}
	idle.deps.Restacker = irs
	iw := writes(idle.env.Sim)
	res, err := Restack(context.Background(), idle.deps, Ref{Repo: testenv.Repo, Issue: idle.issue})
	require.NoError(t, err)
	assert.Equal(t, OutcomeNotTriggered, res.Outcome)
	assert.Zero(t, irs.calls)
	assert.Equal(t, iw, writes(idle.env.Sim))

	f := newFixture(t, pipeline.LabelRun)
	f.step(t)
	_, err = f.env.ClientAs(t, "alice").CreateComment(context.Background(), testenv.Repo, f.issue, "/cogworks stop")
	require.NoError(t, err)
	f.step(t)
	rs := &fakeRestacker{}
	f.deps.Restacker = rs
	w := writes(f.env.Sim)
	res, err = Restack(context.Background(), f.deps, Ref{Repo: testenv.Repo, Issue: f.issue})
	require.NoError(t, err)
	assert.Equal(t, OutcomeNotTriggered, res.Outcome)
	assert.Zero(t, rs.calls)
	assert.Equal(t, w, writes(f.env.Sim))
}

// TestWakeStepsThenRestacksEachOpenItemOnce: a wake-up (a push on main)
// gives each listed work item of the shard its normal step, then one
// restack, under its lock; items the filter leaves out get neither, and
// with no step asked for (the cron) only the restack runs.
func TestWakeStepsThenRestacksEachOpenItemOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["intake"] = config.HumanGated
	f.step(t)
	rs := &fakeRestacker{items: []int{f.issue, f.issue + 1}, out: RestackOutcome{Updated: []int{9}}}
	f.deps.Restacker = rs
	only := func(n int) bool { return n == f.issue }

	results, err := Wake(context.Background(), f.deps, testenv.Repo, WakeOptions{MaxSteps: 1, Include: only})
	require.NoError(t, err)
	require.Len(t, results, 2, "the item's step, then its restack")
	assert.NotEqual(t, ActionRestack, results[0].Action)
	assert.Equal(t, ActionRestack, results[1].Action)
	assert.Equal(t, OutcomeAdvanced, results[1].Outcome, results[1].Reason)
	assert.Equal(t, 1, rs.calls, "one pass per item; the filtered one gets none")
	assert.Equal(t, f.issue, rs.item)
	rec, ok := f.snapshot(t).Restack(9)
	require.True(t, ok, "the status comment records the restack")
	assert.Equal(t, pipeline.RestackUpdated, rec.Action)

	results, err = Wake(context.Background(), f.deps, testenv.Repo, WakeOptions{Include: only})
	require.NoError(t, err)
	require.Len(t, results, 1, "the cron's wake-up restacks only")
	assert.Equal(t, 2, rs.calls)

	f.deps.Restacker = nil
	_, err = WakeOpenItems(context.Background(), f.deps, testenv.Repo, 1)
	require.Error(t, err, "restacks not wired")
}
