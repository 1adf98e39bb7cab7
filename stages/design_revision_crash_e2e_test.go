package stages_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// revisionCase is a design PR under review: how to set it up with a
// writer's review and its revision's answers scripted, and its PR and
// branch.
type revisionCase struct {
	name   string
	setup  func(t *testing.T) *designFixture
	pr     func(f *designFixture) int
	branch func(f *designFixture) string
	// check asserts what only this PR's revision records.
	check func(t *testing.T, f *designFixture)
}

func designCrashCases() []revisionCase {
	return []revisionCase{{
		name: "specification",
		setup: func(t *testing.T) *designFixture {
			f := newDesignFixture(t, false)
			f.review(t, "alice", "REQUEST_CHANGES", f.specPR, "See inline.", stagekit.SpecPath(f.Issue), map[int]string{specSummaryLine: "Say when it resets."})
			// A crash may cost the attempt before its commit: a second answer.
			f.AddJSON(t, prompts.Architecture, revisedSpec())
			f.AddJSON(t, prompts.Architecture, revisedSpec())
			return f
		},
		pr:     func(f *designFixture) int { return f.specPR },
		branch: func(f *designFixture) string { return stagekit.SpecBranch(f.Issue) },
		check: func(t *testing.T, f *designFixture) {
			assert.LessOrEqual(t, f.Requests(prompts.Architecture), 3, "at most one attempt lost to the crash")
		},
	}, {
		name: "interfaces",
		setup: func(t *testing.T) *designFixture {
			f := newDesignFixture(t, true)
			f.review(t, "alice", "REQUEST_CHANGES", f.designPR, "See inline.", "counter/hourly.go", map[int]string{5: "Add a Reset method."})
			revised := stagetest.Design("counter/hourly.go", "package counter\n\n// Hourly counts widgets per hour.\ntype Hourly interface {\n\tAdd(n int)\n\tReset()\n}\n")
			revised.Interfaces[0].Summary = "hourly counter with reset"
			f.AddJSON(t, prompts.InterfaceDesign, revised)
			f.AddJSON(t, prompts.InterfaceDesign, revised)
			return f
		},
		pr:     func(f *designFixture) int { return f.designPR },
		branch: func(f *designFixture) string { return stagekit.DesignBranch(f.Issue) },
		check: func(t *testing.T, f *designFixture) {
			assert.LessOrEqual(t, f.Requests(prompts.InterfaceDesign), 3, "at most one attempt lost to the crash")
			snap := f.StatusSnapshot(t)
			require.Len(t, snap.Interfaces, 1)
			assert.Equal(t, "hourly counter with reset", snap.Interfaces[0].Summary, "the snapshot has the revised interface list")
		},
	}}
}

// TestDesignRevisionCrashAtEveryWriteRecoversWithoutDuplicates: a
// revision step of the specification or interface PR killed at any of its
// writes (lock, PR body, commit, reply, status comment, labels), before
// the write or after it with the answer lost, is completed by the next
// steps with one follow-up commit and one reply, and the cycle in the
// status comment (for the interface PR, with the revised interface list)
// unless the crash fell between the reply and the status write.
func TestDesignRevisionCrashAtEveryWriteRecoversWithoutDuplicates(t *testing.T) {
	t.Parallel()
	for _, tc := range designCrashCases() {
		clean := tc.setup(t)
		counter := &testkit.CrashTransport{K: -1}
		_, err := clean.revise(t, clean.Env.NewClient(t, counter), tc.pr(clean))
		require.NoError(t, err)
		total := counter.Writes()
		require.GreaterOrEqual(t, total, int64(6), "lock label, claim, tree, commit, ref, reply, status, labels")

		for _, after := range []bool{false, true} {
			for k := int64(1); k <= total; k++ {
				t.Run(fmt.Sprintf("%s after=%v write %d", tc.name, after, k), func(t *testing.T) {
					t.Parallel()
					f := tc.setup(t)
					pr := tc.pr(f)
					_, _ = f.revise(t, f.Env.NewClient(t, &testkit.CrashTransport{K: k, After: after}), pr)
					// A claim or label the crash left behind holds the lock
					// until it is stale.
					f.Env.Clock.Advance(f.Cfg.Pipeline.LockTimeout.Duration + time.Minute)
					for range 3 {
						res, err := f.revise(t, nil, pr)
						require.NoError(t, err)
						if res.Outcome == engine.OutcomeNotTriggered {
							break
						}
					}
					assert.Equal(t, 1, f.revisionCommits(t, tc.branch(f)), "one follow-up commit")
					threads, _ := f.answers(t, pr)
					require.Len(t, threads, 1)
					for id, bodies := range threads {
						assert.Len(t, bodies, 1, "thread %d has one reply", id)
					}
					assert.NotContains(t, f.Env.Sim.Labels(testenv.Repo.String(), f.Issue), pipeline.LabelProcessing)
					// A crash after the last reply and before the status
					// write loses only the record (engine/revise.go): the
					// cycle's own keys leave nothing to answer again.
					if rec, ok := f.StatusSnapshot(t).Revision(pr); ok {
						assert.Equal(t, 1, rec.Cycle)
						tc.check(t, f)
					}
				})
			}
		}
	}
}
