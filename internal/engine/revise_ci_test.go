package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// fakeCIReviser stands in for stages/revision.CIStep and records the
// failed head it was given.
type fakeCIReviser struct {
	fakeReviser
	heads []string
}

func (f *fakeCIReviser) PendingCI(ctx context.Context, in StageInput, pr int, head string) (bool, string, error) {
	f.heads = append(f.heads, head)
	return f.Pending(ctx, in, pr)
}

func (f *fakeCIReviser) ReviseCI(ctx context.Context, in StageInput, pr int, head string) (RevisionOutcome, error) {
	f.heads = append(f.heads, head)
	return f.Revise(ctx, in, pr)
}

// TestReviseCIRunsLikeAReviewRevision: a CI revision goes through the
// same step as review feedback's: no lock and no write when the head did
// not fail, else one cycle under the lock with the event's failed head,
// recorded in the status comment as a CI cycle, the stage untouched; an
// infrastructure failure's re-run or report is recorded as spending no
// cycle, and one told before records nothing.
func TestReviseCIRunsLikeAReviewRevision(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rev    fakeReviser
		record pipeline.RevisionAction
		writes bool
		reason string
	}{
		{"the head did not fail", fakeReviser{}, "", false, ""},
		{"revised", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionRevised, Cycle: 1, Commit: "abc123", Reason: "CI failed: test"}},
			pipeline.RevisionRevised, true, "CI revision 1 of PR #7"},
		{"infrastructure re-run", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionRerun, Reason: "a lost runner; re-ran the failed jobs of CI (run 9) once"}},
			pipeline.RevisionRerun, true, "CI of PR #7: no revision cycle spent. a lost runner; re-ran"},
		{"infrastructure told", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionInfrastructure, Reason: "a lost runner"}},
			pipeline.RevisionInfrastructure, true, "nothing re-run"},
		{"infrastructure told before", fakeReviser{pending: true, out: RevisionOutcome{Action: pipeline.RevisionIgnored, Reason: "a lost runner (already reported)"}}, "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pipeline.LabelRun)
			f.deps.Config.Gates["intake"] = config.HumanGated
			f.step(t)
			before := f.snapshot(t)
			rev := &fakeCIReviser{fakeReviser: tt.rev}
			f.deps.CIReviser = rev
			w := writes(f.env.Sim)
			res, err := ReviseCI(context.Background(), f.deps, RevisionRef{Repo: testenv.Repo, Issue: f.issue, PR: 7}, "deadbeef")
			require.NoError(t, err)
			assert.Equal(t, ActionRevise, res.Action)
			assert.Equal(t, tt.writes, writes(f.env.Sim) > w)
			assert.NotContains(t, f.labels(), pipeline.LabelProcessing, "the lock is released")
			for _, h := range rev.heads {
				assert.Equal(t, "deadbeef", h, "the event's failed head reaches the cycle")
			}
			after := f.snapshot(t)
			assert.Equal(t, before.Stage, after.Stage, "the stage does not move")
			got, ok := after.Revision(7)
			if tt.record == "" {
				assert.False(t, ok, "nothing recorded")
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.record, got.Action)
			assert.Contains(t, res.Reason, tt.reason)
		})
	}
	_, err := ReviseCI(context.Background(), Deps{}, RevisionRef{Repo: testenv.Repo, Issue: 1, PR: 7}, "")
	assert.ErrorContains(t, err, "CIReviser is nil")
}

// TestReviseCIFromTheCronFindsTheWorkItemFromTheBranch: the cron names
// only the PR and no failed head; the step reads the work item from the
// PR's cogworks/<N>/ branch and hands the cycle an empty head (the
// current one), and a PR on another branch costs one read and no write.
func TestReviseCIFromTheCronFindsTheWorkItemFromTheBranch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["intake"] = config.HumanGated
	f.step(t)
	ctx := context.Background()
	branch := fmt.Sprintf("cogworks/%d/swi-1", f.issue)
	f.env.Sim.SeedFiles(testenv.Repo.String(), branch, map[string]string{"a.go": "package a\n"})
	pr, err := f.env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "A", Head: branch, Base: "main"})
	require.NoError(t, err)
	rev := &fakeCIReviser{fakeReviser: fakeReviser{pending: true,
		out: RevisionOutcome{Action: pipeline.RevisionRevised, Cycle: 1, Commit: "abc123", Reason: "CI failed: test"}}}
	f.deps.CIReviser = rev
	res, err := ReviseCI(ctx, f.deps, RevisionRef{Repo: testenv.Repo, PR: pr.Number}, "")
	require.NoError(t, err)
	assert.Equal(t, f.issue, res.Issue)
	assert.Equal(t, OutcomeAdvanced, res.Outcome, res.Reason)
	assert.Equal(t, []string{"", ""}, rev.heads)
	_, ok := f.snapshot(t).Revision(pr.Number)
	assert.True(t, ok, "the cycle is recorded in the work item's status comment")

	f.env.Sim.SeedFiles(testenv.Repo.String(), "feature", map[string]string{"a.go": "package a\n// x\n"})
	other, err := f.env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "B", Head: "feature", Base: "main"})
	require.NoError(t, err)
	w := writes(f.env.Sim)
	res, err = ReviseCI(ctx, f.deps, RevisionRef{Repo: testenv.Repo, PR: other.Number}, "")
	require.NoError(t, err)
	assert.Equal(t, OutcomeNotTriggered, res.Outcome)
	assert.Equal(t, w, writes(f.env.Sim))
	assert.Len(t, rev.heads, 2, "a person's PR never reaches the cycle")
}
