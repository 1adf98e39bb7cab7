package stages_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/review"
	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/codegen"
	reviewstage "github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// sharedCapReason is what a cycle past a shared cap of 2 says.
const sharedCapReason = "the cap of 2 revision cycles for this pull request (review and CI together) is reached ([revision] max_cycles)"

// reviseCI runs the CI-feedback step (engine.ReviseCI) on the PR, as the
// cron does: no failed head named.
func (f *revFixture) reviseCI(t *testing.T) (engine.Result, error) {
	t.Helper()
	d := f.deps(nil)
	d.CIReviser = stages.CIReviserOf(f.Env.Client, d.Executors)
	require.NotNil(t, d.CIReviser)
	return engine.ReviseCI(context.Background(), d, engine.RevisionRef{Repo: testenv.Repo, Issue: f.Parent, PR: f.pr}, "")
}

// failCI records a failed go test run of test on the PR branch's head.
func (f *revFixture) failCI(t *testing.T, test string) {
	t.Helper()
	log := "##[group]Run go test ./...\n--- FAIL: " + test + " (0.00s)\nFAIL\texample.com/widgets\t0.004s\n##[error]Process completed with exit code 1.\n"
	_, err := f.Env.Sim.SeedWorkflowRun(testenv.Repo.String(), githubsim.CIRun{Branch: f.branch, Jobs: []githubsim.CIJob{{
		Name: "test", Conclusion: "failure", RunnerName: "GitHub Actions 3", Log: log,
		Steps: []githubsim.CIStep{{Name: "Run go test", Conclusion: "failure"}}}}})
	require.NoError(t, err)
}

// edit queues one revision attempt replacing old by new in the counter's
// file, and its three passing review passes.
func (f *revFixture) edit(t *testing.T, old, new string) {
	t.Helper()
	f.Answer(t, codegen.CodeOutput{Notes: "edited the counter", Edits: []codegen.CodeEdit{{Path: stagetest.SimplePath, Old: old, New: new}}})
	for _, pass := range []string{"review_quality", "review_architecture", "review_security"} {
		require.NoError(t, f.Script.AddJSON(pass, reviewstage.ReviewOutput{Passed: true, Findings: []review.Finding{}}))
	}
}

// kinds counts the PR branch's revision commits: review, then CI.
func (f *revFixture) kinds(t *testing.T) (reviews, ci int) {
	t.Helper()
	ctx := context.Background()
	head, err := f.Env.Client.GetBranchHead(ctx, testenv.Repo, f.branch)
	require.NoError(t, err)
	for sha := head.SHA; sha != ""; {
		c, err := f.Env.Client.GetCommit(ctx, testenv.Repo, sha)
		require.NoError(t, err)
		switch {
		case strings.Contains(c.Message, "\nCogworks-Revision: "):
			reviews++
		case strings.Contains(c.Message, "\nCogworks-CI-Revision: "):
			ci++
		default:
			return reviews, ci
		}
		sha = ""
		if len(c.Parents) > 0 {
			sha = c.Parents[0]
		}
	}
	return reviews, ci
}

// TestRevisionCapIsSharedWithCIEndToEnd: under [revision] max_cycles = 2
// a review revision and then a CI revision of one PR, each a whole engine
// step with the real attempt and review passes, spend the cap together:
// the next review is answered "not revised" with the shared cap, and the
// next CI failure escalates once the same way, neither with an LLM call
// or a commit. Checked by counting each kind apart (the cap before it was
// shared): the third step then revises and the test fails.
func TestRevisionCapIsSharedWithCIEndToEnd(t *testing.T) {
	t.Parallel()
	f := newRevFixture(t, 2)
	f.review(t, "alice", "REQUEST_CHANGES", map[int]string{9: "Say what Inc adds to."})
	f.edit(t, "// Inc adds one.", "// Inc adds one to the count.")
	res, err := f.revise(t, nil)
	require.NoError(t, err)
	require.Equal(t, engine.OutcomeAdvanced, res.Outcome, res.Reason)

	f.failCI(t, "TestSimple")
	f.edit(t, "// Value returns the count.", "// Value returns how many times Inc was called.")
	res, err = f.reviseCI(t)
	require.NoError(t, err)
	require.Equal(t, engine.OutcomeAdvanced, res.Outcome, res.Reason)
	reviews, ci := f.kinds(t)
	require.Equal(t, [2]int{1, 1}, [2]int{reviews, ci}, "one revision of each kind")

	calls := len(f.Script.Requests())
	f.review(t, "alice", "REQUEST_CHANGES", map[int]string{12: "Now say what Value returns."})
	res, err = f.revise(t, nil)
	require.NoError(t, err)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome)
	assert.Contains(t, res.Reason, sharedCapReason)
	escalations := 0
	for _, bodies := range f.botReplies(t) {
		require.Len(t, bodies, 1)
		if strings.Contains(bodies[0], "Not revised: "+sharedCapReason) {
			escalations++
		}
	}
	assert.Equal(t, 1, escalations)

	f.failCI(t, "TestOther")
	res, err = f.reviseCI(t)
	require.NoError(t, err)
	assert.Equal(t, engine.OutcomeWaiting, res.Outcome)
	assert.Contains(t, res.Reason, sharedCapReason)
	// The cron again: the escalation already answers this head.
	writes := f.writes()
	res, err = f.reviseCI(t)
	require.NoError(t, err)
	assert.Equal(t, engine.OutcomeNotTriggered, res.Outcome, res.Reason)
	assert.Equal(t, writes, f.writes(), "no write on a head already escalated")
	assert.Equal(t, calls, len(f.Script.Requests()), "no attempt past the cap")
	reviews, ci = f.kinds(t)
	assert.Equal(t, [2]int{1, 1}, [2]int{reviews, ci}, "no commit past the cap")
	stopped := 0
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.pr) {
		if c.Author == testenv.Bot && strings.Contains(c.Body, "CogWorks stops revising this pull request: "+sharedCapReason) {
			stopped++
		}
	}
	assert.Equal(t, 1, stopped, "one escalation comment, however often the step runs")
	_, snap := f.status(t)
	rec, ok := snap.Revision(f.pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RevisionEscalated, rec.Action)
}
