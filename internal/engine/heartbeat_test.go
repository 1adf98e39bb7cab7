package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestHeartbeatOnlyWhenTheClaimAges runs three steps in one run and counts
// the edits of the lock claim: a run whose steps are quick keeps its claim
// live without edits (one request per step saved), while a run whose steps
// take long refreshes it and keeps the lock to the end.
func TestHeartbeatOnlyWhenTheClaimAges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		perStep time.Duration
		// claimEdits counts PATCHes of the claim: heartbeats plus the
		// release that turns it into the run record.
		claimEdits int
	}{
		{name: "quick steps", perStep: time.Second, claimEdits: 1},
		{name: "steps longer than half of lock_timeout", perStep: 16 * time.Minute, claimEdits: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, pipeline.LabelRun)
			require.Equal(t, 30*time.Minute, f.deps.Config.Pipeline.LockTimeout.Duration)
			f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
				f.env.Clock.Advance(tc.perStep)
				return StageResult{Summary: "more to do"}, nil // no event: the stage has more to do
			})
			f.step(t) // intake → architecture
			f.env.Sim.ResetRequests()
			results, err := Run(context.Background(), f.deps, f.ref(), 3)
			require.NoError(t, err)
			require.Len(t, results, 3)
			for _, r := range results {
				assert.Equal(t, OutcomeAdvanced, r.Outcome, "the run kept its lock: %s", r.Reason)
			}
			claim := ""
			for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
				if strings.Contains(c.Body, "/step/run-1") {
					claim = fmt.Sprintf("/issues/comments/%d", c.ID)
				}
			}
			require.NotEmpty(t, claim, "the run record replaced the claim")
			edits := 0
			for _, r := range f.env.Sim.Requests() {
				if r.Method == "PATCH" && strings.HasSuffix(r.Path, claim) {
					edits++
				}
			}
			assert.Equal(t, tc.claimEdits, edits)
		})
	}
}
