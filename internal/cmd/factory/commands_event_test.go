package factory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// commentPayload writes GitHub's issue_comment.created example with the
// comment replaced by c (as its author posted it) and the issue's labels
// replaced by labels, as the Action's $GITHUB_EVENT_PATH would hold it.
func commentPayload(t *testing.T, c github.Comment, userType string, labels ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "events", "issue_comment.created.cogworks-run.payload.json"))
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	comment := p["comment"].(map[string]any)
	comment["id"], comment["body"] = c.ID, c.Body
	comment["created_at"], comment["updated_at"] = c.CreatedAt.Format(time.RFC3339), c.UpdatedAt.Format(time.RFC3339)
	user := comment["user"].(map[string]any)
	user["login"], user["type"] = c.User, userType
	p["sender"].(map[string]any)["login"] = c.User
	var ls []any
	for _, l := range labels {
		ls = append(ls, map[string]any{"name": l})
	}
	p["issue"].(map[string]any)["labels"] = ls
	out, err := json.Marshal(p)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "event.json")
	require.NoError(t, os.WriteFile(path, out, 0o600))
	return path
}

func TestParseEventCommentCommands(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	hello := github.Repo{Owner: "Codertocat", Name: "Hello-World"}
	tests := []struct {
		name     string
		body     string
		userType string
		labels   []string
		want     factory.EventTarget
	}{
		{"command with the label", "/cogworks approve", "User", []string{pipeline.LabelRun}, factory.EventTarget{Repo: hello, Issue: 1, CommentEvent: true}},
		{"command without the label (a stopped pipeline)", "/cogworks retry", "User", nil, factory.EventTarget{Repo: hello, Issue: 1, CommentEvent: true}},
		// Comments are never state: only a command makes a comment a trigger.
		{"no command with the label", "thanks!", "User", []string{pipeline.LabelRun}, factory.EventTarget{Repo: hello, Issue: 1, Ignore: "comment 5 on #1 is not a new /cogworks command by a person"}},
		{"no command without the label", "thanks!", "User", nil, factory.EventTarget{Repo: hello, Issue: 1, Ignore: "comment 5 on #1 is not a new /cogworks command by a person"}},
		{"quoted command", "> /cogworks retry", "User", nil, factory.EventTarget{Repo: hello, Issue: 1, Ignore: "comment 5 on #1 is not a new /cogworks command by a person"}},
		{"a bot's command", "/cogworks retry", "Bot", []string{pipeline.LabelRun}, factory.EventTarget{Repo: hello, Issue: 1, Ignore: "comment 5 on #1 is not a new /cogworks command by a person"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := commentPayload(t, github.Comment{ID: 5, Body: tt.body, User: "alice", CreatedAt: at, UpdatedAt: at}, tt.userType, tt.labels...)
			got, err := factory.ReadEvent(path)
			require.NoError(t, err)
			require.NotNil(t, got.Known, "the payload's issue is handed to the step")
			got.Known = nil
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCommentCommandsThroughProcessEvent drives the commands the way the
// Action meets them: each comment triggers an issue_comment event and
// `cogworks process --event` runs on its payload, some of them twice (a
// redelivery or a re-run workflow).
func TestCommentCommandsThroughProcessEvent(t *testing.T) {
	const repo = "Codertocat/Hello-World"
	r := github.Repo{Owner: "Codertocat", Name: "Hello-World"}
	env := testenv.New(t)
	env.Sim.CreateRepo("Codertocat", "Hello-World", "main")
	env.Sim.AddCollaborator(repo, "Codertocat", "admin")
	env.Sim.AddCollaborator(repo, "mallory", "read")
	n := env.Sim.SeedIssue(repo, "Codertocat", "Spelling error in the README file", "It looks like you accidently spelled 'commit' with two 't's.")
	env.Sim.LabelIssue(repo, n, "Codertocat", pipeline.LabelRun)
	f, _, _ := cmdtest.TestFactory(t, env)
	ctx := context.Background()
	process := func(t *testing.T, event string) {
		t.Helper()
		// One step per event keeps the pipeline mid-way for the stop.
		require.NoError(t, cmdtest.Execute(t, f, "process", "--event", event, "--workspace", t.TempDir(), "--max-steps", "1"))
	}
	post := func(t *testing.T, login, body string) github.Comment {
		t.Helper()
		env.Clock.Advance(time.Minute)
		c, err := env.ClientAs(t, login).CreateComment(ctx, r, n, body)
		require.NoError(t, err)
		return c
	}
	labels := func() []string { return env.Sim.Labels(repo, n) }
	snapshot := func(t *testing.T) pipeline.Snapshot {
		t.Helper()
		snap, err := factory.ReadSnapshot(ctx, f, r, n)
		require.NoError(t, err)
		return snap
	}
	reactions := func(id int64) []string {
		var out []string
		for _, x := range env.Sim.Reactions(repo, id) {
			out = append(out, x.Content)
		}
		return out
	}
	replies := func(id int64) []string {
		var out []string
		for _, c := range env.Sim.Comments(repo, n) {
			// The reply's key is <issue>/command/<comment id>/<login>.
			key, ok := audit.FindKey(c.Body)
			if c.Author == testenv.Bot && ok && strings.HasPrefix(key, audit.Key("1", "command", strconv.FormatInt(id, 10))+"/") {
				out = append(out, c.Body)
			}
		}
		return out
	}

	// A plain comment is no trigger; the label's own event (twice: a
	// redelivery) steps the pipeline to the architecture gate.
	first := post(t, "Codertocat", "Please take this one.")
	process(t, commentPayload(t, first, "User", labels()...))
	assert.Empty(t, replies(first.ID))
	assert.Equal(t, []string{pipeline.LabelRun}, labels(), "a plain comment steps nothing")
	for range 2 {
		process(t, filepath.Join("testdata", "events", "issues.labeled.cogworks-run.payload.json"))
	}
	require.Contains(t, labels(), pipeline.LabelAwaitingReview, "waiting at the architecture gate")

	// mallory cannot approve: one polite reply, however often the event comes.
	m := post(t, "mallory", "/cogworks approve")
	for range 2 {
		process(t, commentPayload(t, m, "User", labels()...))
	}
	assert.Contains(t, labels(), pipeline.LabelAwaitingReview, "the gate keeps waiting")
	require.Len(t, replies(m.ID), 1)
	assert.Contains(t, replies(m.ID)[0], "needs write, maintain or admin permission")
	assert.Equal(t, []string{"eyes", "confused"}, reactions(m.ID))

	// The owner approves; a redelivery acts no second time.
	a := post(t, "Codertocat", "/cogworks approve")
	for range 2 {
		process(t, commentPayload(t, a, "User", labels()...))
	}
	snap := snapshot(t)
	require.Len(t, snap.Approvals, 1)
	assert.Equal(t, pipeline.ViaCommand, snap.Approvals[0].Via)
	assert.Equal(t, a.ID, snap.Approvals[0].CommentID)
	assert.Equal(t, []string{"eyes", "+1"}, reactions(a.ID))
	stage := snap.Stage

	// Stop, then status and retry on the stopped issue, whose payload no
	// longer carries cogworks:run.
	s := post(t, "Codertocat", "/cogworks stop")
	process(t, commentPayload(t, s, "User", labels()...))
	snap = snapshot(t)
	require.NotNil(t, snap.Stopped, "stage %s, labels %v, replies %v, reactions %v", snap.Stage, labels(), replies(s.ID), reactions(s.ID))
	assert.Equal(t, stage, snap.Stage, "nothing ran after the stop")
	assert.NotContains(t, labels(), pipeline.LabelRun)

	// mallory, who cannot write, was answered less than an hour ago:
	// her next command goes unanswered; an hour later she is answered.
	muted := post(t, "mallory", "/cogworks status")
	process(t, commentPayload(t, muted, "User", labels()...))
	assert.Empty(t, replies(muted.ID))
	assert.Empty(t, reactions(muted.ID))
	env.Clock.Advance(time.Hour)
	st := post(t, "mallory", "/cogworks status")
	process(t, commentPayload(t, st, "User", labels()...))
	require.Len(t, replies(st.ID), 1)
	assert.Contains(t, replies(st.ID)[0], "stopped")
	assert.Contains(t, replies(st.ID)[0], "#issuecomment-")

	re := post(t, "Codertocat", "/cogworks retry")
	process(t, commentPayload(t, re, "User", labels()...))
	snap = snapshot(t)
	assert.Nil(t, snap.Stopped)
	assert.Contains(t, labels(), pipeline.LabelRun)
	assert.NotEqual(t, stage, snap.Stage, "the pipeline moved on after the retry")
	assert.Equal(t, re.ID, snap.CommandsSeen)
}
