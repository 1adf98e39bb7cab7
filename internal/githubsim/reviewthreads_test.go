package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiffHunkEndsAtTheCommentedLine(t *testing.T) {
	patch := "@@ -1,3 +1,4 @@\n package a\n-var x = 1\n+var x = 2\n+var y = 3\n \n@@ -10,2 +11,3 @@\n func f() {}\n+func g() {}\n func h() {}"
	tests := []struct {
		name string
		line int
		want string
	}{
		{"first line of the first hunk", 1, "@@ -1,3 +1,4 @@\n package a"},
		{"an added line after a removal", 2, "@@ -1,3 +1,4 @@\n package a\n-var x = 1\n+var x = 2"},
		{"a line of the second hunk", 12, "@@ -10,2 +11,3 @@\n func f() {}\n+func g() {}"},
		{"a line outside every hunk", 7, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, diffHunk(patch, tt.line))
		})
	}
}

// reviewedPull opens PR 1 (feat → main, main.go changed) as the bot and
// submits alice's changes-requested review with two inline comments.
func reviewedPull(t *testing.T, f fixture) (*github.PullRequestReview, *github.Client) {
	t.Helper()
	c := ctx(t)
	f.srv.AddToken("tok-bot", "cogworks[bot]")
	f.srv.AddToken("tok-alice", "alice")
	f.srv.AddCollaborator(full, "alice", "write")
	bot, alice := clientFor(t, f.url, "tok-bot"), clientFor(t, f.url, "tok-alice")
	f.srv.SeedFiles(full, "main", map[string]string{"main.go": "package main\n"})
	f.srv.SeedFiles(full, "feat", map[string]string{"main.go": "package main\n\nfunc main() {}\n\nfunc helper() {}\n"})
	_, _, err := bot.PullRequests.Create(c, owner, name, newPull("feat", "main"))
	require.NoError(t, err)
	rv, _, err := alice.PullRequests.CreateReview(c, owner, name, 1, &github.PullRequestReviewRequest{
		Body: github.String("two things"), Event: github.String("REQUEST_CHANGES"),
		Comments: []*github.DraftReviewComment{
			{Path: github.String("main.go"), Line: github.Int(3), Body: github.String("print something")},
			{Path: github.String("main.go"), Line: github.Int(5), Body: github.String("unused helper")},
		},
	})
	require.NoError(t, err)
	return rv, bot
}

func TestReviewCommentsCarryDiffHunkAndReplies(t *testing.T) {
	f := setup(t)
	c := ctx(t)
	rv, bot := reviewedPull(t, f)
	assert.Equal(t, "CHANGES_REQUESTED", rv.GetState())

	threads, _, err := bot.PullRequests.ListComments(c, owner, name, 1, &github.PullRequestListCommentsOptions{ListOptions: github.ListOptions{PerPage: 1}})
	require.NoError(t, err)
	require.Len(t, threads, 1, "the list is paginated")
	first := threads[0]
	assert.Equal(t, "@@ -1,1 +1,5 @@\n package main\n+\n+func main() {}", first.GetDiffHunk())
	assert.Equal(t, "RIGHT", first.GetSide())
	assert.Zero(t, first.GetInReplyTo(), "a thread's first comment answers nothing")

	reply, resp, err := replyTo(t, bot, first.GetID(), "done")
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, first.GetID(), reply.GetInReplyTo())
	assert.Equal(t, first.GetPath(), reply.GetPath())
	assert.Equal(t, first.GetLine(), reply.GetLine())
	assert.Equal(t, first.GetDiffHunk(), reply.GetDiffHunk())

	// A reply to the reply joins the same thread, as on the web.
	again, _, err := replyTo(t, bot, reply.GetID(), "and more")
	require.NoError(t, err)
	assert.Equal(t, first.GetID(), again.GetInReplyTo())

	_, _, err = replyTo(t, bot, first.GetID(), "")
	assert.Equal(t, http.StatusUnprocessableEntity, statusOf(t, err), "an empty reply")
	_, _, err = replyTo(t, bot, 999999, "x")
	assert.Equal(t, http.StatusNotFound, statusOf(t, err), "no such comment")

	all, _, err := bot.PullRequests.ListComments(c, owner, name, 1, nil)
	require.NoError(t, err)
	assert.Len(t, all, 4)
}

// TestReviewEventsHaveGitHubsShape: the deliveries of a submitted review
// are a pull_request_review then one pull_request_review_comment per
// inline comment, whose payloads have every top-level, review and
// pull_request key of GitHub's real payload (the fixture) that CogWorks
// could read.
func TestReviewEventsHaveGitHubsShape(t *testing.T) {
	f := setup(t)
	rv, _ := reviewedPull(t, f)
	events, err := f.srv.ReviewEvents(full, rv.GetID(), 7)
	require.NoError(t, err)
	require.Len(t, events, 3)
	assert.Equal(t, []string{"pull_request_review", "pull_request_review_comment", "pull_request_review_comment"},
		[]string{events[0].Event, events[1].Event, events[2].Event})

	real := readJSON(t, "/work/shared/fixtures/github-webhooks/pull_request_review/submitted.payload.json")
	got := map[string]any{}
	require.NoError(t, json.Unmarshal(events[0].Body, &got))
	for _, obj := range []string{"", "review", "pull_request"} {
		want, have := real, got
		if obj != "" {
			want, have = real[obj].(map[string]any), got[obj].(map[string]any)
		}
		for k := range want {
			if slices.Contains([]string{"_links", "auto_merge", "active_lock_reason", "milestone", "requested_reviewers", "requested_teams", "locked", "assignee", "assignees", "diff_url", "patch_url", "commits_url", "review_comments_url", "review_comment_url", "comments_url", "statuses_url", "issue_url", "organization"}, k) {
				continue // URL decorations and settings no CogWorks code reads
			}
			assert.Contains(t, have, k, "%s.%s", obj, k)
		}
	}
	review := got["review"].(map[string]any)
	assert.Equal(t, "changes_requested", review["state"], "webhooks send the state in lower case")
	assert.Equal(t, "alice", got["sender"].(map[string]any)["login"])

	var cm struct {
		Action  string
		Comment struct {
			ID                  int64
			Path                string
			DiffHunk            string `json:"diff_hunk"`
			Line                int
			PullRequestReviewID int64 `json:"pull_request_review_id"`
			User                struct{ Login string }
		}
		PullRequest struct{ Number int } `json:"pull_request"`
	}
	require.NoError(t, json.Unmarshal(events[2].Body, &cm))
	assert.Equal(t, "created", cm.Action)
	assert.Equal(t, 5, cm.Comment.Line)
	assert.Equal(t, rv.GetID(), cm.Comment.PullRequestReviewID)
	assert.Contains(t, cm.Comment.DiffHunk, "+func helper() {}")
	assert.Equal(t, 1, cm.PullRequest.Number)
}

// replyTo answers review comment id of PR 1 through the replies endpoint
// (go-github only has the legacy in_reply_to form).
func replyTo(t *testing.T, cl *github.Client, id int64, body string) (*github.PullRequestComment, *github.Response, error) {
	t.Helper()
	req, err := cl.NewRequest(http.MethodPost, fmt.Sprintf("repos/%s/pulls/1/comments/%d/replies", full, id), map[string]string{"body": body})
	require.NoError(t, err)
	out := &github.PullRequestComment{}
	resp, err := cl.Do(ctx(t), req, out)
	return out, resp, err
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	m := map[string]any{}
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}
