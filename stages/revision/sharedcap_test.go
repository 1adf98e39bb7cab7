package revision_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/revision"
)

// mixedPR drives review and CI revision cycles on one PR with one cap,
// each cycle writing new content so that it commits.
type mixedPR struct {
	prEnv
	gen   *fakeGen
	cap   int
	round int
}

func newMixedPR(t *testing.T, limit int) *mixedPR {
	t.Helper()
	return &mixedPR{prEnv: newPREnv(t), gen: &fakeGen{}, cap: limit}
}

// next makes the generator's next answer differ from every earlier one.
func (m *mixedPR) next() {
	m.round++
	m.gen.files = map[string]string{"count.go": codeNew + strings.Repeat("\n// rev", m.round)}
}

// reviewCycle has alice ask for a change on line and runs a review cycle.
func (m *mixedPR) reviewCycle(t *testing.T, line int) revision.Outcome {
	t.Helper()
	m.next()
	m.review(t, "alice", "REQUEST_CHANGES", map[int]string{line: fmt.Sprintf("round %d", m.round)})
	out, err := m.reviser(m.Client, m.gen, m.cap).Cycle(context.Background(), testenv.Repo, m.pr)
	require.NoError(t, err)
	return out
}

// ciCycle makes CI fail on the head with a failure of its own and runs a
// CI cycle.
func (m *mixedPR) ciCycle(t *testing.T) revision.Outcome {
	t.Helper()
	m.next()
	log := strings.ReplaceAll(failingLog, "TestCount", fmt.Sprintf("TestCount%d", m.round))
	m.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", log)}})
	out, err := m.ciReviser(m.Client, m.gen, m.cap).Cycle(context.Background(), testenv.Repo, m.pr, "")
	require.NoError(t, err)
	return out
}

// trailers counts the revision commits on the branch (first parents from
// its head) by kind: review, then CI.
func (m *mixedPR) trailers(t *testing.T) (review, ci int) {
	t.Helper()
	ctx := context.Background()
	head, err := m.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	for sha := head.SHA; sha != ""; {
		c, err := m.Client.GetCommit(ctx, testenv.Repo, sha)
		require.NoError(t, err)
		switch {
		case strings.Contains(c.Message, "\nCogworks-Revision: "):
			review++
		case strings.Contains(c.Message, "\nCogworks-CI-Revision: "):
			ci++
		}
		sha = ""
		if len(c.Parents) > 0 {
			sha = c.Parents[0]
		}
	}
	return review, ci
}

const sharedCapReason = "the cap of 3 revision cycles for this pull request (review and CI together) is reached ([revision] max_cycles)"

// TestReviewCyclesSpendTheCapOfCIRevisions: with a cap of 3, two review
// cycles leave one CI cycle; the next CI failure escalates, saying the
// cap is shared. Checked by counting CI commits only in the CI cap: the
// second CI cycle then commits and the test fails.
func TestReviewCyclesSpendTheCapOfCIRevisions(t *testing.T) {
	m := newMixedPR(t, 3)
	for i, line := range []int{3, 4} {
		out := m.reviewCycle(t, line)
		require.Equal(t, revision.Revised, out.Action, "review cycle %d", i+1)
		assert.Equal(t, i+1, out.Cycle)
	}
	out := m.ciCycle(t)
	require.Equal(t, revision.Revised, out.Action, "the third cycle of the PR, its first on CI")
	assert.Equal(t, 1, out.Cycle, "CI cycles keep their own numbers")

	out = m.ciCycle(t)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Equal(t, sharedCapReason, out.Reason)
	assert.Equal(t, 1, out.Cycle, "one CI cycle tried")
	assert.EqualValues(t, 3, m.gen.calls.Load(), "no generation past the cap")
	review, ci := m.trailers(t)
	assert.Equal(t, [2]int{2, 1}, [2]int{review, ci}, "three revision commits in all")

	comments, err := m.Client.ListComments(context.Background(), testenv.Repo, m.pr)
	require.NoError(t, err)
	require.Len(t, comments, 1, "one escalation comment")
	assert.Contains(t, comments[0].Body, sharedCapReason)
	assert.Contains(t, comments[0].Body, "Review revisions on this pull request, which share the cap: 2.")

	// A new review past the shared cap is answered, not revised.
	out = m.reviewCycle(t, 6)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Contains(t, out.Reason, sharedCapReason)
	assert.EqualValues(t, 3, m.gen.calls.Load())
}

// TestCIRevisionsSpendTheCapOfReviewCycles: with a cap of 3, two CI
// cycles leave one review cycle; the next review escalates with one
// reply per thread saying the cap is shared, and a re-run of that
// escalation replies nothing twice. Checked by counting review rounds only
// in the review cap: the second review cycle then commits and the test
// fails.
func TestCIRevisionsSpendTheCapOfReviewCycles(t *testing.T) {
	m := newMixedPR(t, 3)
	for i := range 2 {
		out := m.ciCycle(t)
		require.Equal(t, revision.Revised, out.Action, "CI cycle %d", i+1)
		assert.Equal(t, i+1, out.Cycle)
	}
	out := m.reviewCycle(t, 3)
	require.Equal(t, revision.Revised, out.Action, "the third cycle of the PR, its first on review")
	assert.Equal(t, 1, out.Cycle, "review cycles keep their own numbers")

	out = m.reviewCycle(t, 4)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Equal(t, sharedCapReason+"; a maintainer takes it from here", out.Reason)
	assert.Equal(t, 2, out.Cycle)
	assert.EqualValues(t, 3, m.gen.calls.Load(), "no generation past the cap")
	review, ci := m.trailers(t)
	assert.Equal(t, [2]int{1, 2}, [2]int{review, ci}, "three revision commits in all")

	writes := m.writes()
	again, err := m.reviser(m.Client, m.gen, m.cap).Cycle(context.Background(), testenv.Repo, m.pr)
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, again.Action, "every thread is answered")
	assert.Equal(t, writes, m.writes(), "a re-run writes nothing")

	replies := m.botReplies(t)
	require.Len(t, replies, 2)
	escalations := 0
	for id, bodies := range replies {
		require.Len(t, bodies, 1, "thread %d has one reply", id)
		if strings.Contains(bodies[0], "Not revised: "+sharedCapReason) {
			escalations++
		}
	}
	assert.Equal(t, 1, escalations)
}

// TestReviewRoundsThatCommittedNothingCountForReviewOnly: a review round
// answered without a commit (the attempt changed nothing) still counts
// for review, as before the cap was shared, but CI adds only review
// commits. Under a cap of 2: such a round and one CI cycle stop the next
// review; CI, with no review commit, still gets its second cycle. Checked
// by counting only commits for review (the review then revises) and by
// counting review rounds for CI (the second CI cycle then escalates).
func TestReviewRoundsThatCommittedNothingCountForReviewOnly(t *testing.T) {
	m := newMixedPR(t, 2)
	m.review(t, "alice", "REQUEST_CHANGES", map[int]string{3: "round 0"})
	out, err := m.reviser(m.Client, &fakeGen{}, m.cap).Cycle(context.Background(), testenv.Repo, m.pr)
	require.NoError(t, err)
	require.Equal(t, revision.Escalated, out.Action)
	require.Equal(t, "the revision changed nothing", out.Reason)

	out = m.ciCycle(t)
	require.Equal(t, revision.Revised, out.Action, "CI cycle 1")
	out = m.reviewCycle(t, 4)
	assert.Equal(t, revision.Escalated, out.Action, "one review round and one CI commit spend a cap of 2")
	assert.Contains(t, out.Reason, "cap of 2 revision cycles")
	out = m.ciCycle(t)
	assert.Equal(t, revision.Revised, out.Action, "CI cycle 2: no review commit spent the cap")
	out = m.ciCycle(t)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Contains(t, out.Reason, "cap of 2 revision cycles")
	review, ci := m.trailers(t)
	assert.Equal(t, [2]int{0, 2}, [2]int{review, ci})
}
