package webhook

import (
	"context"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/githubsim"
)

const bot = "cogworks[bot]"

// TestRevisionTriggerOnGitHubsRealReview: the real payload (a review of
// someone else's PR) parses with its review, and starts nothing.
func TestRevisionTriggerOnGitHubsRealReview(t *testing.T) {
	p, err := Parse(fixture(t, "pull_request_review", "submitted.payload.json"))
	require.NoError(t, err)
	require.NotNil(t, p.Review)
	assert.Equal(t, "commented", p.Review.State)
	assert.NotEmpty(t, p.Review.User.Login)
	require.NotNil(t, p.PullRequest)
	assert.NotEmpty(t, p.PullRequest.User)
	n, ignore := p.RevisionTrigger("pull_request_review", bot, nil)
	assert.Zero(t, n)
	assert.Contains(t, ignore, "is not CogWorks's")
}

// reviewEvents has reviewer review PR 1 (head, opened by author) with
// one inline comment, and returns the simulator's deliveries.
func reviewEvents(t *testing.T, author, head, reviewer, event string) []githubsim.WebhookEvent {
	t.Helper()
	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.CreateRepo("acme", "widgets", "main")
	sim.SeedFiles("acme/widgets", "main", map[string]string{"a.go": "package a\n"})
	sim.SeedFiles("acme/widgets", head, map[string]string{"a.go": "package a\n\nfunc F() {}\n"})
	client := func(login string) *gh.Client {
		sim.AddToken("tok-"+login, login)
		c, err := gh.NewClient(nil).WithAuthToken("tok-"+login).WithEnterpriseURLs(url+"/api/v3/", url+"/api/uploads/")
		require.NoError(t, err)
		return c
	}
	ctx := context.Background()
	_, _, err = client(author).PullRequests.Create(ctx, "acme", "widgets", &gh.NewPullRequest{Title: gh.String("t"), Head: gh.String(head), Base: gh.String("main")})
	require.NoError(t, err)
	rv, _, err := client(reviewer).PullRequests.CreateReview(ctx, "acme", "widgets", 1, &gh.PullRequestReviewRequest{
		Event: gh.String(event), Body: gh.String("see inline"),
		Comments: []*gh.DraftReviewComment{{Path: gh.String("a.go"), Line: gh.Int(3), Body: gh.String("document F")}}})
	require.NoError(t, err)
	events, err := sim.ReviewEvents("acme/widgets", rv.GetID(), 7)
	require.NoError(t, err)
	require.Len(t, events, 2)
	return events
}

func TestRevisionTrigger(t *testing.T) {
	tests := []struct {
		name                          string
		author, head, reviewer, event string
		trusted                       []string
		wantPR                        int
		wantIgnore                    string
	}{
		{"a person's changes requested on the bot's PR", bot, "cogworks/4/swi-1", "alice", "REQUEST_CHANGES", nil, 1, ""},
		{"a person's comment review", bot, "cogworks/4/swi-1", "alice", "COMMENT", nil, 1, ""},
		{"an approval", bot, "cogworks/4/swi-1", "alice", "APPROVE", nil, 0, "approves"},
		{"another bot", bot, "cogworks/4/swi-1", "linter[bot]", "COMMENT", nil, 0, "trusted_bots does not list"},
		{"an allow-listed bot", bot, "cogworks/4/swi-1", "linter[bot]", "COMMENT", []string{"linter[bot]"}, 1, ""},
		{"a person's PR on a cogworks branch", "mallory", "cogworks/4/swi-1", "alice", "COMMENT", nil, 0, "not CogWorks's"},
		{"the bot's PR on another branch", bot, "feature", "alice", "COMMENT", nil, 0, "not CogWorks's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, ev := range reviewEvents(t, tt.author, tt.head, tt.reviewer, tt.event) {
				p, err := Parse(ev.Body)
				require.NoError(t, err)
				n, ignore := p.RevisionTrigger(ev.Event, bot, tt.trusted)
				if tt.event == "APPROVE" && ev.Event == "pull_request_review_comment" {
					// An approval's inline comments are feedback too.
					assert.Equal(t, 1, n, ev.Event)
					continue
				}
				assert.Equal(t, tt.wantPR, n, ev.Event)
				if tt.wantIgnore == "" {
					assert.Empty(t, ignore, ev.Event)
				} else {
					assert.Contains(t, ignore, tt.wantIgnore, ev.Event)
				}
			}
		})
	}
}

// TestRevisionTriggerIgnoresTheBotsOwnReplies: CogWorks's replies come
// back as pull_request_review_comment events; they must not loop.
func TestRevisionTriggerIgnoresTheBotsOwnReplies(t *testing.T) {
	p := Payload{Action: "created", PullRequest: &PullRequest{Number: 1, HeadRef: "cogworks/4/swi-1", User: bot},
		Comment: &Comment{ID: 9, InReplyTo: 8, User: User{Login: bot, Type: "Bot"}}}
	n, ignore := p.RevisionTrigger("pull_request_review_comment", bot, []string{bot})
	assert.Zero(t, n)
	assert.Equal(t, "written by CogWorks itself", ignore)
	_, ignore = p.RevisionTrigger("pull_request_review_comment", bot, nil)
	assert.NotEmpty(t, ignore)
	p.Action = "edited"
	p.Comment.User = User{Login: "alice", Type: "User"}
	_, ignore = p.RevisionTrigger("pull_request_review_comment", bot, nil)
	assert.Contains(t, ignore, "starts no revision")
}
