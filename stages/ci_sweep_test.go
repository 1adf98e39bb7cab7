package stages_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages"
)

// The cron's CI sweep (process-all's reviseFound) runs, for each of the
// bot's open PRs, a review revision step and a CI revision step on the
// PR's current head, with no event and no work item named. These tests
// run those two steps the way the sweep does, over a PR whose CI failure
// CogWorks has already answered with a comment: a PR that stays red
// until a maintainer acts must cost reads only, however many sweeps pass.

// sweep is the cron's revision steps over one PR: what they did, and the
// requests and writes they made.
type sweep struct {
	review, ci       engine.Result
	requests, writes int
}

// sweep runs one cron sweep's revision steps over the fixture's PR, as
// reviseFound does: engine.Revise, then engine.ReviseCI on the current
// head, each naming the PR only.
func (f *revFixture) sweep(t *testing.T) sweep {
	t.Helper()
	ctx := context.Background()
	d := f.deps(nil)
	d.CIReviser = stages.CIReviserOf(f.Env.Client, d.Executors)
	require.NotNil(t, d.CIReviser)
	f.Env.Sim.ResetRequests()
	ref := engine.RevisionRef{Repo: testenv.Repo, PR: f.pr}
	var s sweep
	var err error
	s.review, err = engine.Revise(ctx, d, ref)
	require.NoError(t, err)
	s.ci, err = engine.ReviseCI(ctx, d, ref, "")
	require.NoError(t, err)
	s.requests, s.writes = f.Env.Sim.RequestCount(), f.writes()
	if s.writes > 0 {
		for _, r := range f.Env.Sim.Requests() {
			if r.Method != http.MethodGet {
				t.Logf("write: %s %s", r.Method, r.Path)
			}
		}
	}
	return s
}

// prComments are the bodies of the PR's comments by login.
func (f *revFixture) prComments(t *testing.T, login string) []string {
	t.Helper()
	var out []string
	for _, c := range f.Env.Sim.Comments(testenv.Repo.String(), f.pr) {
		if c.Author == login {
			out = append(out, c.Body)
		}
	}
	return out
}

// stuckOnTheCap makes the fixture's PR one whose CI revisions reached
// the cap of one cycle: a CI revision commit on its branch, and a check
// that fails on the code at the new head.
func (f *revFixture) stuckOnTheCap(t *testing.T) {
	t.Helper()
	msg := fmt.Sprintf("cogworks #%d: revision 1 on CI failure\n\nCogworks-CI-Revision: pr=%d cycle=1 failed=0000000 failure=000000000000\n", f.pr, f.pr)
	require.NoError(t, f.Env.Client.PutFile(context.Background(), testenv.Repo, github.FileCommit{Path: "notes.md", Branch: f.branch,
		Message: msg, Content: []byte("ci\n")}))
	_, err := f.Env.Sim.SeedWorkflowRun(testenv.Repo.String(), githubsim.CIRun{Branch: f.branch, Jobs: []githubsim.CIJob{{Name: "test",
		Conclusion: "failure", RunnerName: "GitHub Actions 2", Log: "--- FAIL: TestSimple (0.00s)\nFAIL\n",
		Steps: []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "Run go test", Conclusion: "failure"}}}}})
	require.NoError(t, err)
}

// TestCronSweepOverAnEscalatedPRWritesNothing: a PR whose CI revisions
// reached their cap is escalated once, by the first sweep (one comment,
// the status record, the lock taken and released). Every later sweep
// finds the bot's escalation at that head before it takes the lock and
// makes no write at all. Checked against PendingCI without the
// escalation check: the second sweep then takes and releases the lock
// and records the escalation again.
func TestCronSweepOverAnEscalatedPRWritesNothing(t *testing.T) {
	t.Parallel()
	f := newRevFixture(t, 1)
	f.stuckOnTheCap(t)

	first := f.sweep(t)
	assert.Equal(t, engine.OutcomeWaiting, first.ci.Outcome, first.ci.Reason)
	assert.Contains(t, first.ci.Reason, "cap of 1 revision cycles for this pull request (review and CI together)")
	require.Len(t, f.prComments(t, testenv.Bot), 1, "one escalation comment")
	_, snap := f.status(t)
	rec, ok := snap.Revision(f.pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RevisionEscalated, rec.Action)
	t.Logf("the first sweep (escalation): %d requests, %d writes", first.requests, first.writes)

	second := f.sweep(t)
	t.Logf("a sweep over the escalated PR: %d requests, %d writes (benchmarks/README.md)", second.requests, second.writes)
	assert.Equal(t, engine.OutcomeNotTriggered, second.ci.Outcome)
	assert.Contains(t, second.ci.Reason, "already")
	assert.Zero(t, second.writes, "no lock, no comment, no status write")
	assert.Len(t, f.prComments(t, testenv.Bot), 1)
	assert.NotContains(t, f.Env.Sim.Labels(testenv.Repo.String(), f.Parent), pipeline.LabelProcessing)
	assert.Equal(t, 1, strings.Count(strings.Join(f.prComments(t, testenv.Bot), ""), "stops revising"))
}

// TestCronSweepReportsAWorkflowThatCouldNotStartOnce: a workflow that
// could not start (startup_failure: an invalid workflow file) has no job
// and no check run. The first sweep sees its workflow run, spends no
// revision cycle and no LLM call, re-runs nothing and tells the PR once;
// the second writes nothing. Checked against PendingCI reading check runs
// only: the first sweep then reports nothing.
func TestCronSweepReportsAWorkflowThatCouldNotStartOnce(t *testing.T) {
	t.Parallel()
	f := newRevFixture(t, 3)
	_, err := f.Env.Sim.SeedWorkflowRun(testenv.Repo.String(), githubsim.CIRun{Branch: f.branch, Conclusion: "startup_failure"})
	require.NoError(t, err)
	calls := len(f.Script.Requests())

	first := f.sweep(t)
	assert.Equal(t, engine.OutcomeAdvanced, first.ci.Outcome, first.ci.Reason)
	assert.Contains(t, first.ci.Reason, "no revision cycle spent")
	reports := f.prComments(t, testenv.Bot)
	require.Len(t, reports, 1, "the PR is told once")
	assert.Contains(t, reports[0], "could not start")
	_, snap := f.status(t)
	rec, ok := snap.Revision(f.pr)
	require.True(t, ok)
	assert.Equal(t, pipeline.RevisionInfrastructure, rec.Action)
	assert.Zero(t, rec.Cycle, "no cycle spent")
	t.Logf("the first sweep (the report): %d requests, %d writes", first.requests, first.writes)

	second := f.sweep(t)
	t.Logf("a sweep over the reported PR: %d requests, %d writes (benchmarks/README.md)", second.requests, second.writes)
	assert.Equal(t, engine.OutcomeNotTriggered, second.ci.Outcome)
	assert.Contains(t, second.ci.Reason, "already reported")
	assert.Zero(t, second.writes)
	assert.Len(t, f.prComments(t, testenv.Bot), 1)
	assert.Equal(t, calls, len(f.Script.Requests()), "no LLM call")
	for _, r := range f.Env.Sim.Requests() {
		assert.NotContains(t, r.Path, "rerun", "nothing to re-run")
	}
}

// TestRedTeamCronSweepACopiedMarkerSilencesNothing: the escalation marker
// is plain text in a comment, which anybody who can comment can paste. A
// person's comment carrying the very marker CogWorks would write at the
// failing head does not make the failure answered: the sweep escalates
// it in the bot's own comment. Checked by matching the marker in
// anybody's comment: the sweep then writes nothing and the PR's failure
// is never told.
func TestRedTeamCronSweepACopiedMarkerSilencesNothing(t *testing.T) {
	t.Parallel()
	f := newRevFixture(t, 1)
	f.stuckOnTheCap(t)
	head, err := f.Env.Client.GetBranchHead(context.Background(), testenv.Repo, f.branch)
	require.NoError(t, err)
	forged := audit.Format(audit.Comment{Key: audit.Key("ci-revision", strconv.Itoa(f.pr), head.SHA, "escalated"),
		Title: fmt.Sprintf("CI revision of #%d stopped", f.pr), Body: "Nothing to see here."})
	_, err = f.Env.ClientAs(t, "mallory").CreateComment(context.Background(), testenv.Repo, f.pr, forged)
	require.NoError(t, err)

	s := f.sweep(t)
	assert.Equal(t, engine.OutcomeWaiting, s.ci.Outcome, s.ci.Reason)
	assert.Contains(t, s.ci.Reason, "cap of 1 revision cycles for this pull request (review and CI together)")
	require.Len(t, f.prComments(t, testenv.Bot), 1, "the bot's own escalation")
}
