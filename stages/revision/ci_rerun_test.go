package revision_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/revision"
)

// shutdown is a job log that shows the runner, not the code, failed.
const shutdown = "2026-11-27T10:00:01.1234567Z ##[error]The runner has received a shutdown signal. This can happen when the runner service is stopped, or a manually started runner is canceled.\n"

// rerunRequests counts the rerun-failed-jobs requests the simulator saw.
func (e prEnv) rerunRequests() int {
	n := 0
	for _, r := range e.Sim.Requests() {
		if r.Method == http.MethodPost && strings.HasSuffix(r.Path, "/rerun-failed-jobs") {
			n++
		}
	}
	return n
}

// TestInfrastructureFailureIsRerunOnceAndSpendsNoCycle: CI that failed on
// the infrastructure spends no cycle; the failed jobs of its workflow run
// are re-run once (one request, no other write), every delivery of the
// same run after that re-runs nothing, and when the re-run fails on the
// infrastructure again the PR is told once, with no second re-run.
func TestInfrastructureFailureIsRerunOnceAndSpendsNoCycle(t *testing.T) {
	tests := []struct {
		name string
		run  githubsim.CIRun
	}{
		{"a cancelled job", githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("cancelled", "")}}},
		{"a runner shutdown", githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("failure", shutdown)}}},
		{"a job that never started", githubsim.CIRun{Jobs: []githubsim.CIJob{{Name: "test", Conclusion: "failure"}}}},
		{"timed out before any step", githubsim.CIRun{Jobs: []githubsim.CIJob{{Name: "test", Conclusion: "timed_out", RunnerName: "r1",
			Steps: []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPREnv(t)
			ids := e.seedRun(t, tt.run)
			gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
			r := e.ciReviser(e.Client, gen, 3)
			writes := e.writes()
			var acted []revision.Action
			for _, a := range e.deliver(t, r, ids.Run) {
				if a != "" {
					acted = append(acted, a)
				}
			}
			require.NotEmpty(t, acted, "the payloads of a failed or cancelled run trigger")
			assert.Equal(t, revision.Rerun, acted[0])
			for _, a := range acted[1:] {
				assert.Equal(t, revision.Ignored, a, "the other deliveries of the run find it re-running")
			}
			assert.Equal(t, 1, e.rerunRequests(), "one re-run")
			assert.Equal(t, writes+1, e.writes(), "the re-run is the only write")

			// Redelivered after the re-run, and the cron: the run is pending.
			e.deliver(t, r, ids.Run)
			out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
			require.NoError(t, err)
			assert.Equal(t, revision.Ignored, out.Action, out.Reason)
			assert.Equal(t, 1, e.rerunRequests(), "no second re-run")

			// The re-run (attempt 2) fails on the infrastructure again:
			// reported once, never re-run again.
			require.NoError(t, e.Sim.SetJob(testenv.Repo.String(), ids.Jobs[0], testJob("failure", shutdown)))
			for range 2 {
				e.deliver(t, r, ids.Run)
			}
			out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
			require.NoError(t, err)
			assert.Equal(t, revision.Ignored, out.Action, "reported before")
			assert.Contains(t, out.Reason, "attempt 2")
			assert.Equal(t, 1, e.rerunRequests(), "a second infrastructure failure is not re-run")
			comments, err := e.Client.ListComments(context.Background(), testenv.Repo, e.pr)
			require.NoError(t, err)
			require.Len(t, comments, 1, "told once")
			assert.Contains(t, comments[0].Body, "failed on the infrastructure again in attempt 2")
			assert.Contains(t, comments[0].Body, "spent no revision cycle")
			assert.Zero(t, gen.calls.Load(), "no generation: no cycle spent")
			assert.Zero(t, e.ciCommits(t))
		})
	}
}

// noActions hides the repository's workflow runs: its check runs read as
// those of another CI app.
type noActions struct{ *github.Client }

func (noActions) ListWorkflowRuns(context.Context, github.Repo, string) ([]github.WorkflowRun, error) {
	return nil, nil
}

// TestInfrastructureFailureNotRerunIsReportedOnce: a workflow that could
// not start, a check of another CI app, a run awaiting a maintainer's
// approval, and any run with re-runs turned off are told on the PR once
// and re-run nothing.
func TestInfrastructureFailureNotRerunIsReportedOnce(t *testing.T) {
	tests := []struct {
		name  string
		run   githubsim.CIRun
		rerun bool
		other bool
		want  string
	}{
		{"a workflow that could not start", githubsim.CIRun{Conclusion: "startup_failure"}, true, false, "no job to re-run"},
		{"a check of another CI app", githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("cancelled", "")}}, true, true, "another CI app"},
		{"re-runs turned off", githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("cancelled", "")}}, false, false, "rerun_infrastructure_failures is off"},
		{"a run awaiting approval", githubsim.CIRun{Conclusion: "action_required", Jobs: []githubsim.CIJob{{Name: "test", Conclusion: "action_required"}}},
			true, false, "awaits a maintainer's approval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newPREnv(t)
			e.seedRun(t, tt.run)
			gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
			r := e.ciReviser(e.Client, gen, 3)
			r.RerunInfrastructure = tt.rerun
			if tt.other {
				r.GitHub = noActions{e.Client}
			}
			out, err := r.Cycle(context.Background(), testenv.Repo, e.pr, "")
			require.NoError(t, err)
			assert.Equal(t, revision.Infrastructure, out.Action, out.Reason)
			assert.Contains(t, out.Reason, tt.want)
			out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
			require.NoError(t, err)
			assert.Equal(t, revision.Ignored, out.Action, "told before")
			comments, err := e.Client.ListComments(context.Background(), testenv.Repo, e.pr)
			require.NoError(t, err)
			require.Len(t, comments, 1)
			assert.Contains(t, comments[0].Body, tt.want)
			assert.Zero(t, e.rerunRequests())
			assert.Zero(t, gen.calls.Load())
		})
	}
}

// TestRedTeamRerunOnlyOnTheBotsOwnPRHead: re-running spends the
// repository's Actions minutes, so nobody can make CogWorks re-run a run
// that is not on the head of a PR the bot opened. A person's PR from a
// branch named like CogWorks's, with a cancelled run, gets no re-run; nor
// does a cancelled run on an older commit of the bot's PR, delivered
// after the head moved. Checked by removing the OwnOpen test from
// CIReviser.Cycle (the person's run is re-run) and by passing the
// event's head instead of the branch's to ReadChecks (the old run is).
func TestRedTeamRerunOnlyOnTheBotsOwnPRHead(t *testing.T) {
	e := newPREnv(t)
	const forged = "cogworks/1/forged"
	e.Sim.SeedFiles(testenv.Repo.String(), forged, map[string]string{"count.go": codeOld + "// mine\n"})
	theirs, err := e.ClientAs(t, "alice").CreatePull(context.Background(), testenv.Repo, github.NewPull{Title: "x", Head: forged, Base: "main"})
	require.NoError(t, err)
	_, err = e.Sim.SeedWorkflowRun(testenv.Repo.String(), githubsim.CIRun{Branch: forged, Jobs: []githubsim.CIJob{testJob("cancelled", "")}})
	require.NoError(t, err)
	r := e.ciReviser(e.Client, &fakeGen{files: map[string]string{"count.go": codeNew}}, 3)
	out, err := r.Cycle(context.Background(), testenv.Repo, theirs.Number, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, out.Action)

	old, err := e.Client.GetBranchHead(context.Background(), testenv.Repo, branch)
	require.NoError(t, err)
	stale := e.seedRun(t, githubsim.CIRun{Jobs: []githubsim.CIJob{testJob("cancelled", "")}})
	require.NoError(t, e.Client.PutFile(context.Background(), testenv.Repo, github.FileCommit{Path: "notes.md", Branch: branch, Message: "note", Content: []byte("n\n")}))
	for _, a := range e.deliver(t, r, stale.Run) {
		assert.Contains(t, []revision.Action{"", revision.Ignored}, a)
	}
	out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, old.SHA)
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, out.Action)
	out, err = r.Cycle(context.Background(), testenv.Repo, e.pr, "")
	require.NoError(t, err)
	assert.Equal(t, revision.Ignored, out.Action, "the new head has no failed run: %s", out.Reason)
	assert.Zero(t, e.rerunRequests())
}
