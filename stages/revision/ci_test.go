package revision_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/internal/webhook"
	"github.com/cogworks/cogworks/stages/revision"
)

// leaked is a token a test prints into its log.
const leaked = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// failingLog is a go test job's log, timestamps and all.
const failingLog = "2026-11-27T10:00:01.1234567Z ##[group]Run go test ./...\n" +
	"2026-11-27T10:00:01.1234567Z ##[endgroup]\n" +
	"2026-11-27T10:00:02.1234567Z --- FAIL: TestCount (0.00s)\n" +
	"2026-11-27T10:00:02.1234567Z     count_test.go:9: Count() = 0, want 1 (token " + leaked + ")\n" +
	"2026-11-27T10:00:02.1234567Z FAIL\texample.com/widgets\t0.004s\n" +
	"2026-11-27T10:00:02.1234567Z ##[error]Process completed with exit code 1.\n"

func testJob(conclusion, log string) githubsim.CIJob {
	return githubsim.CIJob{Name: "test", Conclusion: conclusion, RunnerName: "GitHub Actions 3", Log: log,
		Steps:       []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "Run go test", Conclusion: conclusion}},
		Annotations: []githubsim.CIAnnotation{{Path: "count_test.go", Line: 9, Message: "Count() = 0, want 1"}}}
}

// seedRun records a workflow run on the PR branch's head.
func (e prEnv) seedRun(t *testing.T, run githubsim.CIRun) githubsim.CIRunIDs {
	t.Helper()
	run.Branch = branch
	ids, err := e.Sim.SeedWorkflowRun(testenv.Repo.String(), run)
	require.NoError(t, err)
	return ids
}

func (e prEnv) ciReviser(client *github.Client, gen revision.Generator, maxCycles int) revision.CIReviser {
	return revision.CIReviser{GitHub: client, Generator: gen, Bot: testenv.Bot, MaxCycles: maxCycles, Redactor: secrets.New(),
		RerunInfrastructure: true}
}

// deliver runs one cycle per delivery GitHub makes when run completes,
// each triggered from its payload alone, and returns their actions
// ("" for an event the trigger ignored).
func (e prEnv) deliver(t *testing.T, r revision.CIReviser, run int64) []revision.Action {
	t.Helper()
	events, err := e.Sim.WorkflowRunEvents(testenv.Repo.String(), run, 7)
	require.NoError(t, err)
	var actions []revision.Action
	for _, ev := range events {
		res, err := webhook.ParseCI(ev.Event, ev.Body)
		require.NoError(t, err)
		pr, head, ignore := res.CITrigger()
		if ignore != "" {
			actions = append(actions, "")
			continue
		}
		require.Equal(t, e.pr, pr)
		out, err := r.Cycle(context.Background(), testenv.Repo, pr, head)
		require.NoError(t, err)
		actions = append(actions, out.Action)
	}
	return actions
}

func TestFailingCheckRunWithALogYieldsAFixCommitAndAGreenRunEndsIt(t *testing.T) {
	e := newPREnv(t)
	before, err := e.Client.GetBranchHead(context.Background(), testenv.Repo, branch)
	require.NoError(t, err)
	failed := e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{{Name: "lint", Conclusion: "success", RunnerName: "r1"}, testJob("failure", failingLog)}})
	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	r := e.ciReviser(e.Client, gen, 3)

	// GitHub delivers a check_run per job, then check_suite and
	// workflow_run: the first failed one revises, the rest find the head
	// moved.
	actions := e.deliver(t, r, failed.Run)
	assert.Equal(t, []revision.Action{"", revision.Revised, revision.Ignored, revision.Ignored}, actions)
	require.EqualValues(t, 1, gen.calls.Load())
	assert.Contains(t, gen.last.Feedback, "TestCount")
	assert.Contains(t, gen.last.Feedback, "Run go test")
	assert.Contains(t, gen.last.Feedback, "count_test.go:9")
	assert.NotContains(t, gen.last.Feedback, leaked, "a secret in the log never reaches the prompt")
	require.Len(t, gen.last.Items, 1)
	assert.Equal(t, revision.Item{Source: revision.SourceCI, Text: "test: TestCount", Path: "count_test.go", Line: 9}, gen.last.Items[0])
	assert.Equal(t, before.SHA, gen.last.Head)

	head, err := e.Client.GetBranchHead(context.Background(), testenv.Repo, branch)
	require.NoError(t, err)
	fix, err := e.Client.GetCommit(context.Background(), testenv.Repo, head.SHA)
	require.NoError(t, err)
	assert.Equal(t, []string{before.SHA}, fix.Parents, "one follow-up commit, no force-push")
	assert.Contains(t, fix.Message, fmt.Sprintf("Cogworks-CI-Revision: pr=%d cycle=1 failed=%s", e.pr, before.SHA))

	// The cron, before CI ran on the fix: nothing to read, nothing done.
	writes := e.writes()
	out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, out.Action)

	// CI runs again on the fix and passes: nothing more happens.
	green := e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{{Name: "lint", Conclusion: "success", RunnerName: "r1"}, testJob("success", "ok\n")}})
	assert.Equal(t, []revision.Action{"", "", "", ""}, e.deliver(t, r, green.Run), "a green run triggers nothing")
	out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, out.Action)
	assert.Contains(t, out.Reason, "passed")
	assert.Equal(t, writes, e.writes())
	assert.EqualValues(t, 1, gen.calls.Load())
}

func TestSameCIFailureTwiceStopsAndEscalatesWithWhatItTried(t *testing.T) {
	e := newPREnv(t)
	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	r := e.ciReviser(e.Client, gen, 3)
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action)

	// The fix fails the same way (other timings): stop, say so once.
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", strings.ReplaceAll(failingLog, "0.004s", "0.007s"))}})
	for range 2 {
		out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
		require.NoError(t, err)
		assert.Equal(t, revision.Escalated, out.Action)
		assert.Contains(t, out.Reason, "the same way after the CI revision")
	}
	assert.EqualValues(t, 1, gen.calls.Load(), "no second attempt at the same failure")
	comments, err := e.Client.ListComments(context.Background(), testenv.Repo, e.pr)
	require.NoError(t, err)
	require.Len(t, comments, 1, "one escalation, however often the cycle runs")
	assert.Contains(t, comments[0].Body, "fixed nothing")
	assert.Contains(t, comments[0].Body, fmt.Sprintf("Cogworks-CI-Revision: pr=%d cycle=1", e.pr), "what it tried")
	assert.Contains(t, comments[0].Body, "TestCount")
	assert.NotContains(t, comments[0].Body, leaked)
}

func TestCIRevisionCapCountsEveryCycleOfThePR(t *testing.T) {
	e := newPREnv(t)
	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	r := e.ciReviser(e.Client, gen, 1)
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action)
	// A maintainer pushes many commits on top; CI then fails anew.
	for i := range 7 {
		require.NoError(t, e.ClientAs(t, "alice").PutFile(context.Background(), testenv.Repo, github.FileCommit{Path: fmt.Sprintf("notes/%d.md", i), Branch: branch, Message: "note", Content: []byte("n\n")}))
	}
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", strings.ReplaceAll(failingLog, "TestCount", "TestOther"))}})
	out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Escalated, out.Action, "the earlier cycle still counts, however deep under other commits")
	assert.Contains(t, out.Reason, "cap of 1")
	assert.EqualValues(t, 1, gen.calls.Load())
}

func TestCIRevisionStopsAtTheCap(t *testing.T) {
	e := newPREnv(t)
	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	r := e.ciReviser(e.Client, gen, 1)
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action)
	// A new failure on the fix, past a cap of one cycle.
	other := strings.ReplaceAll(failingLog, "TestCount", "TestCountAll")
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", other)}})
	out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Escalated, out.Action)
	assert.Contains(t, out.Reason, "cap of 1 revision cycles for this pull request (review and CI together)")
	assert.EqualValues(t, 1, gen.calls.Load())
}

// TestOneCICycleCosts counts the GitHub requests of one CI-feedback
// cycle on a failed job (benchmarks/README.md): the PR, the head, the
// check runs, the workflow runs, the failed run's jobs, the annotations,
// the log (one API request; the download is off the API), the base's
// head and the compare that lists the PR's commits (for earlier CI
// revisions), the head again for the commit, and the commit's three
// writes.
func TestOneCICycleCosts(t *testing.T) {
	e := newPREnv(t)
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	start := len(e.Sim.Requests())
	out, err := e.ciReviser(e.NewClient(t, nil), &fakeGen{files: map[string]string{"count.go": codeNew}}, 3).
		Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	require.Equal(t, revision.Revised, out.Action)
	reads, writes, downloads := 0, 0, 0
	var paths []string
	for _, r := range e.Sim.Requests()[start:] {
		paths = append(paths, r.Method+" "+r.Path)
		switch {
		case strings.HasPrefix(r.Path, "/_joblogs/"):
			downloads++
		case r.Method == http.MethodGet:
			reads++
		default:
			writes++
		}
	}
	t.Logf("one CI revision cycle: %d reads, %d writes, %d log download:\n%s", reads, writes, downloads, strings.Join(paths, "\n"))
	assert.Equal(t, 1, downloads)
	assert.Equal(t, 3, writes)
	assert.Equal(t, 10, reads)
}

// TestRedTeamCIFailureOnAPersonsCogWorksBranchChangesNothing: a person
// opens a PR from a branch named like CogWorks's and makes its CI fail;
// the payload's branch name passes the trigger, but the cycle reads the
// PR's author from GitHub and writes nothing. Checked by removing the
// author test from CIReviser.Cycle: the cycle then revises the person's
// branch and the test fails.
func TestRedTeamCIFailureOnAPersonsCogWorksBranchChangesNothing(t *testing.T) {
	e := newPREnv(t)
	const forged = "cogworks/1/forged"
	e.Sim.SeedFiles(testenv.Repo.String(), forged, map[string]string{"count.go": codeOld + "// mine\n"})
	theirs, err := e.ClientAs(t, "alice").CreatePull(context.Background(), testenv.Repo, github.NewPull{Title: "x", Head: forged, Base: "main"})
	require.NoError(t, err)
	ids, err := e.Sim.SeedWorkflowRun(testenv.Repo.String(), githubsim.CIRun{Branch: forged, Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	require.NoError(t, err)
	gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
	r := e.ciReviser(e.Client, gen, 3)
	writes := e.writes()
	events, err := e.Sim.WorkflowRunEvents(testenv.Repo.String(), ids.Run, 7)
	require.NoError(t, err)
	triggered := 0
	for _, ev := range events {
		res, err := webhook.ParseCI(ev.Event, ev.Body)
		require.NoError(t, err)
		pr, head, ignore := res.CITrigger()
		if ignore != "" {
			continue
		}
		triggered++
		require.Equal(t, theirs.Number, pr)
		out, err := r.Cycle(context.Background(), testenv.Repo, pr, head)
		require.NoError(t, err)
		assert.Equal(t, revision.Ignored, out.Action)
	}
	assert.Positive(t, triggered, "the payload alone cannot tell")
	assert.Zero(t, gen.calls.Load())
	assert.Equal(t, writes, e.writes())
}

// racingGen runs another cycle on the same failure while its own attempt
// is generating (a second delivery handled concurrently).
type racingGen struct {
	fakeGen
	other func()
}

func (g *racingGen) Revise(ctx context.Context, req revision.Request) (revision.Change, error) {
	if g.other != nil {
		run := g.other
		g.other = nil
		run()
	}
	return g.fakeGen.Revise(ctx, req)
}

func TestTwoCyclesOnOneFailureCommitOnce(t *testing.T) {
	e := newPREnv(t)
	e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
	inner := &fakeGen{files: map[string]string{"count.go": codeNew}}
	outer := &racingGen{fakeGen: fakeGen{files: map[string]string{"count.go": codeNew + "// other\n"}}}
	var innerOut revision.Outcome
	outer.other = func() {
		var err error
		innerOut, err = e.ciReviser(e.NewClient(t, nil), inner, 3).Cycle(context.Background(), testenv.Repo, e.pr, "")
		require.NoError(t, err)
	}
	out, err := e.ciReviser(e.Client, outer, 3).Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Revised, innerOut.Action)
	assert.Equal(t, revision.Ignored, out.Action)
	assert.Contains(t, out.Reason, "head moved")
	head, err := e.Client.GetBranchHead(context.Background(), testenv.Repo, branch)
	require.NoError(t, err)
	assert.Equal(t, innerOut.Commit, head.SHA, "one commit: the first to land")
	got, err := e.Client.GetFile(context.Background(), testenv.Repo, "count.go", branch)
	require.NoError(t, err)
	assert.Equal(t, codeNew, string(got))
}

// ciCommits counts the CI revision commits on the branch.
func (e prEnv) ciCommits(t *testing.T) int {
	t.Helper()
	ctx := context.Background()
	head, err := e.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	n := 0
	for sha := head.SHA; sha != ""; {
		c, err := e.Client.GetCommit(ctx, testenv.Repo, sha)
		require.NoError(t, err)
		if strings.Contains(c.Message, "Cogworks-CI-Revision: ") {
			n++
		}
		sha = ""
		if len(c.Parents) > 0 {
			sha = c.Parents[0]
		}
	}
	return n
}

// TestCrashAtEveryWriteOfACIRevisionRecoversWithoutDuplicates: a crash
// before or after each write of a CI cycle (tree, commit, ref update; the
// escalation comment), then the same delivery again, leaves one commit
// (or one comment) and generates again only while nothing was pushed.
func TestCrashAtEveryWriteOfACIRevisionRecoversWithoutDuplicates(t *testing.T) {
	for _, after := range []bool{false, true} {
		for k := int64(1); k <= 3; k++ {
			t.Run(fmt.Sprintf("after=%v write %d", after, k), func(t *testing.T) {
				e := newPREnv(t)
				e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
				failed, err := e.Client.GetBranchHead(context.Background(), testenv.Repo, branch)
				require.NoError(t, err)
				gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
				_, err = e.ciReviser(e.NewClient(t, &testkit.CrashTransport{K: k, After: after}), gen, 3).
					Cycle(context.Background(), testenv.Repo, e.pr, failed.SHA)
				require.Error(t, err, "the crash surfaces")
				out, err := e.ciReviser(e.NewClient(t, nil), gen, 3).Cycle(context.Background(), testenv.Repo, e.pr, failed.SHA)
				require.NoError(t, err)
				if pushed := k == 3 && after; pushed {
					assert.Equal(t, revision.Ignored, out.Action, "the fix is on the branch: nothing more")
					assert.EqualValues(t, 1, gen.calls.Load())
				} else {
					assert.Equal(t, revision.Revised, out.Action)
				}
				assert.Equal(t, 1, e.ciCommits(t), "one follow-up commit")
			})
		}
	}
	t.Run("escalation comment, answer lost", func(t *testing.T) {
		e := newPREnv(t)
		gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
		e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		_, err := e.ciReviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, e.pr, "")
		require.NoError(t, err)
		e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", failingLog)}})
		_, err = e.ciReviser(e.NewClient(t, &testkit.CrashTransport{K: 1, After: true}), gen, 3).Cycle(context.Background(), testenv.Repo, e.pr, "")
		require.Error(t, err)
		out, err := e.ciReviser(e.NewClient(t, nil), gen, 3).Cycle(context.Background(), testenv.Repo, e.pr, "")
		require.NoError(t, err)
		assert.Equal(t, revision.Escalated, out.Action)
		comments, err := e.Client.ListComments(context.Background(), testenv.Repo, e.pr)
		require.NoError(t, err)
		assert.Len(t, comments, 1, "one escalation comment")
	})
}
