package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// botComments counts the bot's replies to commands on the fixture's
// issue.
func botReplies(f *fixture) int {
	n := 0
	for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
		if c.Author == testenv.Bot && strings.Contains(c.Body, "reply to ") {
			n++
		}
	}
	return n
}

// An outsider (read permission) posts command after command at a waiting
// gate to make the bot write. Before the reply window, each comment cost
// 8 writes (a reaction, a lock claim, a reply, a second reaction, the
// status, labels): the comments after the first fail the zero-write
// assertion below. Now the first comment of the hour is answered and the
// others cost no write at all; an hour later she gets one answer again,
// while a writer is answered every time.
func TestRedTeamOutsiderCommandsGetOneAnswerPerWindow(t *testing.T) {
	f := gatedFixture(t)
	first := f.comment(t, "mallory", "/cogworks approve")
	f.step(t)
	require.Len(t, f.replies(first.ID), 1, "the first command is answered")
	assert.Equal(t, []string{"eyes", "confused"}, f.reactions(first.ID))

	for _, body := range []string{"/cogworks approve", "/cogworks help", "/cogworks status", "/cogworks merge", "/cogworks help\n/cogworks status"} {
		f.env.Clock.Advance(5 * time.Minute)
		c := f.comment(t, "mallory", body)
		f.env.Sim.ResetRequests()
		for range 2 { // the event delivered again, or the step re-run
			f.step(t)
		}
		assert.Zero(t, writes(f.env.Sim), "%q within the hour costs no write", body)
		assert.Empty(t, f.replies(c.ID))
		assert.Empty(t, f.reactions(c.ID))
	}
	assert.Equal(t, 1, botReplies(f), "one answer to mallory in the hour")
	assert.Zero(t, f.rec.count(pipeline.StageInterfaceDesign), "the gate keeps waiting")

	// A writer is answered every time, even right after mallory.
	for range 2 {
		c := f.comment(t, "alice", "/cogworks status")
		f.step(t)
		assert.Len(t, f.replies(c.ID), 1, "alice is answered")
	}

	// Two outsider commands read in one step: the first is answered.
	f.env.Clock.Advance(2 * time.Hour)
	a := f.comment(t, "mallory", "/cogworks help")
	b := f.comment(t, "mallory", "/cogworks status")
	f.env.Sim.ResetRequests()
	f.step(t)
	f.step(t)
	assert.Len(t, f.replies(a.ID), 1, "a new window, a new answer")
	assert.Empty(t, f.replies(b.ID), "the same step does not answer her twice")
	assert.Empty(t, f.reactions(b.ID))
	assert.Equal(t, b.ID, f.snapshot(t).CommandsSeen)
}

// An outsider edits the issue after approval, again and again. Before,
// the first edit cost a comment of its own ("the issue changed after
// approval", one per distinct text): the assertion on the bot's comments
// fails. Now the pause and its diff show in the status comment only.
func TestRedTeamOutsiderEditsCostNoComment(t *testing.T) {
	f := newOutsiderIssue(t, "alice")
	f.step(t) // intake, pinned at alice's trigger
	status := func() string {
		for _, c := range f.env.Sim.Comments(testenv.Repo.String(), f.issue) {
			if c.Author == testenv.Bot && strings.Contains(c.Body, audit.Marker(statusKey(f.issue))) {
				return c.Body
			}
		}
		return ""
	}
	f.env.Sim.ResetRequests()
	for i := range 6 {
		body := fmt.Sprintf("Count widgets per hour, version %d.", i)
		f.env.Clock.Advance(time.Minute)
		_, err := f.env.ClientAs(t, "mallory").UpdateIssue(t.Context(), testenv.Repo, f.issue, github.IssueUpdate{Body: &body})
		require.NoError(t, err)
		res := f.step(t)
		assert.Equal(t, OutcomeWaiting, res.Outcome)
	}
	created := 0
	for _, r := range f.env.Sim.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/comments") && !strings.Contains(string(r.Body), "/lock/") {
			created++
		}
	}
	assert.Zero(t, created, "no comment but the lock claim: the edits wrote no comment of their own")
	assert.Contains(t, status(), "the issue changed after approval", "the status says why it paused")
	assert.Contains(t, status(), "-Count widgets per hour.\n+Count widgets per hour, version 0.", "and shows the change the gate opened on")
	assert.Zero(t, f.rec.count(pipeline.StageArchitecture))
}
