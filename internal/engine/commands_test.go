package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
)

// gatedFixture is a pipeline waiting at the architecture gate.
func gatedFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, pipeline.LabelRun)
	f.deps.Config.Gates["architecture"] = config.HumanGated
	f.step(t) // intake
	res := f.step(t)
	require.Equal(t, OutcomeWaiting, res.Outcome)
	return f
}

// comment posts body on the fixture's issue as login.
func (f *fixture) comment(t *testing.T, login, body string) github.Comment {
	t.Helper()
	f.env.Clock.Advance(time.Second)
	c, err := f.env.ClientAs(t, login).CreateComment(context.Background(), testenv.Repo, f.issue, body)
	require.NoError(t, err)
	f.env.Clock.Advance(time.Second)
	return c
}

// reactions lists the contents of the bot's reactions to comment id.
func (f *fixture) reactions(id int64) []string {
	var out []string
	for _, r := range f.env.Sim.Reactions(testenv.Repo.String(), id) {
		if r.User == testenv.Bot {
			out = append(out, r.Content)
		}
	}
	return out
}

// reply returns the bot's replies to comment id.
func (f *fixture) replies(id int64) []string {
	var out []string
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		key, ok := audit.FindKey(c.Body)
		want := audit.Key(fmt.Sprint(f.issue), "command", fmt.Sprint(id))
		if c.Author == testenv.Bot && ok && (key == want || strings.HasPrefix(key, want+"/")) {
			out = append(out, c.Body)
		}
	}
	return out
}

func TestCommandsAtAWaitingGate(t *testing.T) {
	tests := []struct {
		name  string
		login string
		body  string
		// edit edits the comment after posting it.
		edit          bool
		wantPassed    bool
		wantReactions []string
		// wantReply is a substring of the one reply ("" for no reply).
		wantReply string
		wantSeen  bool
	}{
		{name: "approve by a maintainer passes the gate", login: "alice", body: "Spec reads well.\n\n/cogworks approve",
			wantPassed: true, wantReactions: []string{"eyes", "+1"}, wantSeen: true},
		{name: "approve by a read-only user is refused politely", login: "mallory", body: "/cogworks approve",
			wantReactions: []string{"eyes", "confused"}, wantReply: "needs write, maintain or admin permission on " + testenv.Repo.String(), wantSeen: true},
		{name: "quoted approve does nothing", login: "alice", body: "> /cogworks approve\n\nwhy was this approved?"},
		{name: "approve in a code block does nothing", login: "alice", body: "Type this:\n\n```\n/cogworks approve\n```"},
		{name: "approve in an indented code block does nothing", login: "alice", body: "Type this:\n\n    /cogworks approve"},
		{name: "an edited comment does nothing", login: "alice", body: "/cogworks approve", edit: true},
		{name: "the bot's own command does nothing", login: testenv.Bot, body: "/cogworks approve"},
		{name: "status answers with the status link", login: "mallory", body: "/cogworks status",
			wantReactions: []string{"eyes", "+1"}, wantReply: "#issuecomment-", wantSeen: true},
		{name: "help answers with the commands", login: "mallory", body: "/cogworks help",
			wantReactions: []string{"eyes", "+1"}, wantReply: "`/cogworks stop`", wantSeen: true},
		{name: "an unknown command answers with help", login: "alice", body: "/cogworks merge",
			wantReactions: []string{"eyes", "confused"}, wantReply: "`merge`", wantSeen: true},
		{name: "retry with nothing to retry", login: "alice", body: "/cogworks retry",
			wantReactions: []string{"eyes", "confused"}, wantReply: "nothing to retry", wantSeen: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := gatedFixture(t)
			c := f.comment(t, tt.login, tt.body)
			if tt.edit {
				f.env.Clock.Advance(time.Minute)
				_, err := f.env.ClientAs(t, tt.login).EditComment(context.Background(), testenv.Repo, c.ID, tt.body+"\n\n(edited)")
				require.NoError(t, err)
			}
			f.env.Sim.ResetRequests()
			for range 3 { // the event delivered again, or the step re-run
				f.step(t)
			}
			snap := f.snapshot(t)
			if tt.wantPassed {
				assert.Equal(t, 1, f.rec.count(pipeline.StageInterfaceDesign), "the gate passed once")
				require.Len(t, snap.Approvals, 1)
				assert.Equal(t, pipeline.Approval{Stage: pipeline.StageArchitecture, By: tt.login, Via: "command", CommentID: c.ID, At: snap.Approvals[0].At}, snap.Approvals[0])
			} else {
				assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign), "the gate keeps waiting")
				assert.Contains(t, f.labels(), pipeline.LabelAwaitingReview)
				assert.Empty(t, snap.Approvals)
			}
			assert.Equal(t, tt.wantReactions, f.reactions(c.ID))
			replies := f.replies(c.ID)
			if tt.wantReply == "" {
				assert.Empty(t, replies)
			} else {
				require.Len(t, replies, 1, "one reply, never twice")
				assert.Contains(t, replies[0], tt.wantReply)
				assert.Contains(t, replies[0], "@"+tt.login)
			}
			if tt.wantSeen {
				assert.Equal(t, c.ID, snap.CommandsSeen)
			} else {
				assert.Zero(t, snap.CommandsSeen)
				assert.Zero(t, writes(f.env.Sim), "no command: the waiting gate writes nothing")
			}
			assert.NotContains(t, f.labels(), pipeline.LabelProcessing)
		})
	}
}

func TestCommandsAreCheckedWhereCommentsAreReadAnyway(t *testing.T) {
	// A pipeline between stages (no gate): the lock round's comment read
	// finds the command; stop halts it before the stage runs.
	f := newFixture(t, pipeline.LabelRun)
	f.step(t) // intake → architecture (auto)
	c := f.comment(t, "alice", "/cogworks stop")
	res := f.step(t)
	assert.Equal(t, OutcomeWaiting, res.Outcome)
	assert.Equal(t, ActionCommands, res.Action)
	assert.Zero(t, f.rec.count(pipeline.StageArchitecture), "nothing ran after the stop")
	snap := f.snapshot(t)
	require.NotNil(t, snap.Stopped)
	assert.Equal(t, pipeline.StopRecord{By: "alice", At: c.CreatedAt, CommentID: c.ID}, *snap.Stopped)
	assert.NotContains(t, f.labels(), pipeline.LabelRun, "the stop takes cogworks:run off")
	assert.Equal(t, []string{"eyes", "+1"}, f.reactions(c.ID))
}

func TestStopThenResume(t *testing.T) {
	tests := []struct {
		name   string
		resume func(t *testing.T, f *fixture) Ref
		// refused is set when the resume must not happen.
		refused bool
	}{
		{name: "retry command", resume: func(t *testing.T, f *fixture) Ref {
			f.comment(t, "alice", "/cogworks retry")
			return Ref{Repo: testenv.Repo, Issue: f.issue, CommentEvent: true}
		}},
		{name: "cogworks:run applied again", resume: func(t *testing.T, f *fixture) Ref {
			require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, "alice", pipeline.LabelRun))
			return f.ref()
		}},
		{name: "retry by a read-only user", refused: true, resume: func(t *testing.T, f *fixture) Ref {
			f.comment(t, "mallory", "/cogworks retry")
			return Ref{Repo: testenv.Repo, Issue: f.issue, CommentEvent: true}
		}},
		{name: "a comment event without a command", refused: true, resume: func(t *testing.T, f *fixture) Ref {
			f.comment(t, "alice", "please go on")
			return f.ref()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, pipeline.LabelRun)
			f.step(t) // intake
			f.comment(t, "alice", "/cogworks stop")
			f.step(t)
			require.NotNil(t, f.snapshot(t).Stopped)

			// Stopped: events and cron find nothing to do, at no cost.
			f.env.Sim.ResetRequests()
			res := f.step(t)
			assert.Equal(t, OutcomeNotTriggered, res.Outcome)
			assert.Zero(t, writes(f.env.Sim))

			ref := tt.resume(t, f)
			_, err := Run(context.Background(), f.deps, ref, 1)
			require.NoError(t, err)
			snap := f.snapshot(t)
			if tt.refused {
				assert.NotNil(t, snap.Stopped)
				assert.Zero(t, f.rec.count(pipeline.StageArchitecture))
				assert.NotContains(t, f.labels(), pipeline.LabelRun)
				return
			}
			assert.Nil(t, snap.Stopped)
			assert.Equal(t, 1, f.rec.count(pipeline.StageArchitecture), "the pipeline resumed where it stopped")
			assert.Contains(t, f.labels(), pipeline.LabelRun)
		})
	}
}

func TestStopWithoutSnapshotWriteIsRepaired(t *testing.T) {
	// The stop is recorded but the label write is lost: cogworks:run is
	// still there, applied before the stop, so it does not resume.
	f := newFixture(t, pipeline.LabelRun)
	f.step(t)
	f.comment(t, "alice", "/cogworks stop")
	f.step(t)
	require.True(t, f.env.Sim.LabelIssue(testenv.Repo.String(), f.issue, testenv.Bot, pipeline.LabelRun))
	f.step(t)
	assert.NotNil(t, f.snapshot(t).Stopped)
	assert.NotContains(t, f.labels(), pipeline.LabelRun, "the bot's own label does not resume")
	assert.Zero(t, f.rec.count(pipeline.StageArchitecture))
}

func TestRetryCommandResumesAFailedPipeline(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	fail := true
	f.deps.Executors[pipeline.StageArchitecture] = StageExecutorFunc(func(context.Context, StageInput) (StageResult, error) {
		if fail {
			return StageResult{}, &escalation.Error{Reason: "no spec"}
		}
		return StageResult{Event: pipeline.EventDone}, nil
	})
	f.step(t)
	_, err := Step(context.Background(), f.deps, f.ref())
	require.True(t, isFailed(err))
	fail = false
	c := f.comment(t, "alice", "/cogworks retry")
	f.step(t)
	snap := f.snapshot(t)
	assert.Nil(t, snap.Failure)
	assert.NotEqual(t, pipeline.StageFailed, snap.Stage)
	assert.Equal(t, c.ID, snap.CommandsSeen)
	assert.Equal(t, []string{"eyes", "+1"}, f.reactions(c.ID))
}

func TestCommandEventWithoutCommandCostsNothing(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	f.step(t)
	f.comment(t, "alice", "/cogworks stop")
	f.step(t)
	f.comment(t, "alice", "no command here")
	f.env.Sim.ResetRequests()
	known, ok := f.env.Sim.Issue(testenv.Repo.String(), f.issue)
	require.True(t, ok)
	res, err := Step(context.Background(), f.deps, Ref{Repo: testenv.Repo, Issue: f.issue, Known: &github.Issue{Number: f.issue, Labels: known.Labels}})
	require.NoError(t, err)
	assert.Equal(t, OutcomeNotTriggered, res.Outcome)
	assert.Zero(t, res.GitHubRequests)
}

// TestCommandActsOnceAcrossCrashes kills the step at each of its writes,
// before the write lands and after it landed with the answer lost, then
// runs again: the command acts exactly once.
func TestCommandActsOnceAcrossCrashes(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"/cogworks approve", "/cogworks stop", "/cogworks approve\n/cogworks status"} {
		for _, after := range []bool{false, true} {
			for k := int64(1); ; k++ {
				f := gatedFixture(t)
				c := f.comment(t, "alice", body)
				crash := &testkit.CrashTransport{K: k, After: after}
				d := f.deps
				d.GitHub = f.env.NewClient(t, crash)
				_, _ = Step(context.Background(), d, f.ref())
				f.env.Clock.Advance(time.Hour) // past lock_timeout
				for range 2 {
					f.step(t)
				}
				snap := f.snapshot(t)
				assert.Equal(t, c.ID, snap.CommandsSeen, "%q k=%d after=%v", body, k, after)
				assert.Equal(t, []string{"eyes", "+1"}, f.reactions(c.ID))
				assert.LessOrEqual(t, len(f.replies(c.ID)), 1)
				assert.NotContains(t, f.labels(), pipeline.LabelProcessing)
				if strings.Contains(body, "approve") {
					assert.Len(t, snap.Approvals, 1, "%q k=%d after=%v", body, k, after)
				} else {
					assert.NotNil(t, snap.Stopped)
					assert.Empty(t, snap.Approvals)
				}
				if crash.Writes() < k {
					break // the step finished before the k-th write: every write was tried
				}
			}
		}
	}
}

// withdrawing deletes the command comment just before CogWorks reacts to
// it, as a person who changes their mind between the read and the write.
type withdrawing struct {
	GitHub
	withdraw func()
}

func (w withdrawing) CreateReaction(ctx context.Context, repo github.Repo, id int64, content string) error {
	w.withdraw()
	return w.GitHub.CreateReaction(ctx, repo, id, content)
}

func TestDeletedCommandIsSkipped(t *testing.T) {
	f := gatedFixture(t)
	c := f.comment(t, "alice", "/cogworks approve")
	alice := f.env.ClientAs(t, "alice")
	d := f.deps
	d.GitHub = withdrawing{GitHub: f.env.Client, withdraw: func() {
		_ = alice.DeleteComment(context.Background(), testenv.Repo, c.ID)
	}}
	res, err := Step(context.Background(), d, f.ref())
	require.NoError(t, err)
	assert.Equal(t, OutcomeWaiting, res.Outcome, "a deleted approval approves nothing")
	assert.Equal(t, c.ID, f.snapshot(t).CommandsSeen)
	assert.Empty(t, f.snapshot(t).Approvals)
	assert.NotContains(t, f.labels(), pipeline.LabelProcessing)
}
