package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// fakeReviser stands in for stages/revision: Pending says pending, Revise
// answers out or err, and both count their calls.
type fakeReviser struct {
	pending       bool
	out           RevisionOutcome
	err           error
	checks, calls int
	sawSnapshot   bool
}

func (f *fakeReviser) Pending(context.Context, StageInput, int) (bool, string, error) {
	f.checks++
	if !f.pending {
		return false, "nothing awaits an answer", nil
	}
	return true, "", nil
}

func (f *fakeReviser) Revise(_ context.Context, in StageInput, _ int) (RevisionOutcome, error) {
	f.calls++
	f.sawSnapshot = in.Snapshot != nil && in.Snapshot.Stage != ""
	return f.out, f.err
}

// TestReviseRunsBesideTheStage: a revision step takes the lock only when
// a thread awaits an answer, records the cycle in the status comment
// without moving the stage or its gate, and releases the lock on every
// path; a failed cycle records nothing, so the next step completes it.
func TestReviseRunsBesideTheStage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rev     fakeReviser
		outcome StepOutcome
		record  pipeline.RevisionAction
		errSub  string
		writes  bool
	}{
		{"nothing pending", fakeReviser{}, OutcomeNotTriggered, "", "", false},
		{"revised", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionRevised, Cycle: 1, Commit: "abc", Threads: 2}},
			OutcomeAdvanced, pipeline.RevisionRevised, "", true},
		{"stopped at the cap", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionEscalated, Cycle: 4, Threads: 1, Reason: "the cap"}},
			OutcomeWaiting, pipeline.RevisionEscalated, "", true},
		{"the cycle fails", fakeReviser{pending: true, err: errors.New("generator broke")}, "", "", "generator broke", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pipeline.LabelRun)
			f.deps.Config.Gates["intake"] = config.HumanGated
			f.step(t) // intake, then its gate waits
			before := f.snapshot(t)
			require.NotNil(t, before.Gate)
			rev := tt.rev
			f.deps.Reviser = &rev
			f.deps.RunID = "run-revise"
			w := writes(f.env.Sim)
			res, err := Revise(context.Background(), f.deps, RevisionRef{Repo: testenv.Repo, Issue: f.issue, PR: 7})
			if tt.errSub != "" {
				require.ErrorContains(t, err, tt.errSub)
			} else {
				require.NoError(t, err)
				assert.Equal(t, tt.outcome, res.Outcome, res.Reason)
			}
			assert.Equal(t, ActionRevise, res.Action)
			assert.Equal(t, tt.writes, writes(f.env.Sim) > w)
			assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
			after := f.snapshot(t)
			assert.Equal(t, before.Stage, after.Stage, "the stage does not move")
			assert.Equal(t, before.Gate.Stage, after.Gate.Stage, "the gate still waits")
			got, ok := after.Revision(7)
			if tt.record == "" {
				assert.False(t, ok, "nothing recorded")
				return
			}
			assert.True(t, rev.sawSnapshot, "the cycle gets the work item's snapshot")
			require.True(t, ok)
			assert.Equal(t, tt.record, got.Action)
			assert.Equal(t, rev.out.Cycle, got.Cycle)
		})
	}
}

// TestReviseRefusesAStoppedPipeline: /cogworks stop also stops
// revisions; nothing is locked or written.
func TestReviseRefusesAStoppedPipeline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pipeline.LabelRun)
	f.step(t)
	_, err := f.env.ClientAs(t, "alice").CreateComment(context.Background(), testenv.Repo, f.issue, "/cogworks stop")
	require.NoError(t, err)
	f.step(t)
	require.NotNil(t, f.snapshot(t).Stopped)
	rev := &fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionRevised, Cycle: 1}}
	f.deps.Reviser = rev
	w := writes(f.env.Sim)
	res, err := Revise(context.Background(), f.deps, RevisionRef{Repo: testenv.Repo, Issue: f.issue, PR: 7})
	require.NoError(t, err)
	assert.Equal(t, OutcomeWaiting, res.Outcome)
	assert.True(t, strings.Contains(res.Reason, "guard_revise"), res.Reason)
	assert.Zero(t, rev.calls)
	assert.Equal(t, w, writes(f.env.Sim))
}
