package revision_test

import (
	"context"
	"strings"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/stages/revision"
)

// conversationAnswers are the bot's comments on the PR's conversation
// that answer a review's body.
func (e prEnv) conversationAnswers(t *testing.T, pr int) []string {
	t.Helper()
	comments, err := e.Client.ListComments(context.Background(), testenv.Repo, pr)
	require.NoError(t, err)
	var out []string
	for _, c := range comments {
		if c.User == testenv.Bot && strings.HasPrefix(c.Body, "Answer to review ") {
			out = append(out, c.Body)
		}
	}
	return out
}

// TestReviewBodyWithoutInlineCommentsIsFeedback: a writer's review whose
// body is its only feedback — changes requested or a comment — is revised
// on like a thread: the body quoted as untrusted data, one commit, one
// answer on the conversation, and nothing more on a re-run. An approval's
// body asks for nothing.
func TestReviewBodyWithoutInlineCommentsIsFeedback(t *testing.T) {
	tests := []struct {
		event string
		want  revision.Action
	}{
		{"REQUEST_CHANGES", revision.Revised},
		{"COMMENT", revision.Revised},
		{"APPROVE", revision.Ignored},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			e := newPREnv(t)
			e.review(t, "alice", tt.event, nil) // body "Please fix these.", no inline comment
			gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
			out, err := e.reviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, e.pr)
			require.NoError(t, err)
			require.Equal(t, tt.want, out.Action, out.Reason)
			if tt.want == revision.Ignored {
				assert.Zero(t, gen.calls.Load())
				assert.Empty(t, e.conversationAnswers(t, e.pr))
				return
			}
			assert.Contains(t, gen.last.Feedback, "Please fix these.")
			assert.Contains(t, gen.last.Feedback, "its body, on the pull request as a whole (reviewer with")
			require.Len(t, gen.last.Items, 1)
			assert.Equal(t, revision.SourceReviewBody, gen.last.Items[0].Source)
			assert.Equal(t, 1, e.revisionCommits(t))
			answers := e.conversationAnswers(t, e.pr)
			require.Len(t, answers, 1)
			assert.Contains(t, answers[0], "Revised in "+out.Commit[:12])
			assert.Empty(t, e.botReplies(t), "no thread to reply in")

			writes := e.writes()
			again, err := e.reviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, e.pr)
			require.NoError(t, err)
			assert.Equal(t, revision.Ignored, again.Action, "the body is answered")
			assert.Equal(t, writes, e.writes())
			assert.EqualValues(t, 1, gen.calls.Load())
		})
	}
}

// TestRedTeamReviewBodyOfAnOutsiderChangesNothing: a review body is a new
// way in for instructions, so it passes the same trust rule as a thread:
// an outsider's or an unlisted bot's body-only review makes no write and
// no generation. Checked against collect with the trust check skipped for
// review bodies: the outsider's body is then revised on and the test fails.
func TestRedTeamReviewBodyOfAnOutsiderChangesNothing(t *testing.T) {
	for _, login := range []string{"mallory", "eve", "linter[bot]"} {
		t.Run(login, func(t *testing.T) {
			e := newPREnv(t)
			e.review(t, login, "REQUEST_CHANGES", nil)
			gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
			writes := e.writes()
			out, err := e.reviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, e.pr)
			require.NoError(t, err)
			assert.Equal(t, revision.Ignored, out.Action)
			assert.Equal(t, writes, e.writes(), "no write")
			assert.Zero(t, gen.calls.Load(), "no generation")
		})
	}
}

// TestMergedSpecPullIsAnsweredAndLeftAlone: a writer's review of the
// bot's specification PR after it was merged gets one answer saying the
// text is approved, and neither generation nor a commit; a merged
// sub-work-item PR is not answered at all.
func TestMergedSpecPullIsAnsweredAndLeftAlone(t *testing.T) {
	for _, head := range []string{"cogworks/1/spec", "cogworks/1/interfaces", "cogworks/1/swi-2"} {
		t.Run(head, func(t *testing.T) {
			e := newPREnv(t)
			e.Sim.SeedFiles(testenv.Repo.String(), head, map[string]string{"count.go": codeOld + "// design\n"})
			p, err := e.Client.CreatePull(context.Background(), testenv.Repo, github.NewPull{Title: "Spec", Body: "Refs #1", Head: head, Base: "main"})
			require.NoError(t, err)
			e.Sim.AddToken("ghp_merge_alice", "alice")
			alice, err := gh.NewClient(nil).WithAuthToken("ghp_merge_alice").WithEnterpriseURLs(e.URL+"/api/v3/", e.URL+"/api/uploads/")
			require.NoError(t, err)
			_, _, err = alice.PullRequests.Merge(context.Background(), testenv.Repo.Owner, testenv.Repo.Name, p.Number, "", nil)
			require.NoError(t, err)
			e.pr = p.Number
			e.review(t, "alice", "COMMENT", nil)
			gen := &fakeGen{files: map[string]string{"count.go": codeNew}}
			out, err := e.reviser(e.Client, gen, 3).Cycle(context.Background(), testenv.Repo, p.Number)
			require.NoError(t, err)
			assert.Zero(t, gen.calls.Load(), "no generation on a merged PR")
			if head == "cogworks/1/swi-2" {
				assert.Equal(t, revision.Ignored, out.Action)
				return
			}
			assert.Equal(t, revision.Escalated, out.Action)
			answers := e.conversationAnswers(t, p.Number)
			require.Len(t, answers, 1)
			assert.Contains(t, answers[0], "already merged, so its text is approved")
		})
	}
}
