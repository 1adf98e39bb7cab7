package factory_test

import (
	"context"
	"testing"

	gh "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestParseEventReviewPayloadsAskForARevision: the simulator's
// deliveries of a review with two inline comments on a CogWorks PR (the
// review, then one review comment per thread) each name the PR and its
// work item for the Action. The bot's replies, echoed back as review
// comments, ask for nothing; the review GitHub files each reply under
// names the PR (the payload cannot tell the bot from a trusted bot), and
// the revision's read-only check then finds nothing to answer
// (TestRevisionEndToEndChangesRequested's second step).
func TestParseEventReviewPayloadsAskForARevision(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	const branch = "cogworks/4/swi-1"
	env.Sim.SeedFiles(testenv.Repo.String(), branch, map[string]string{"a.go": "package a\n\nfunc A() {}\n"})
	pr, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "A", Head: branch, Base: "main"})
	require.NoError(t, err)
	env.Sim.AddToken("ghp_alice_review", "alice")
	c, err := gh.NewClient(nil).WithAuthToken("ghp_alice_review").WithEnterpriseURLs(env.URL+"/api/v3/", env.URL+"/api/uploads/")
	require.NoError(t, err)
	rv, _, err := c.PullRequests.CreateReview(ctx, testenv.Repo.Owner, testenv.Repo.Name, pr.Number, &gh.PullRequestReviewRequest{
		Event: gh.String("REQUEST_CHANGES"), Body: gh.String("Fix these."), Comments: []*gh.DraftReviewComment{
			{Path: gh.String("a.go"), Line: gh.Int(1), Body: gh.String("one")},
			{Path: gh.String("a.go"), Line: gh.Int(3), Body: gh.String("two")}}})
	require.NoError(t, err)
	events, err := env.Sim.ReviewEvents(testenv.Repo.String(), rv.GetID(), 7)
	require.NoError(t, err)
	require.Len(t, events, 3)
	for _, ev := range events {
		got, err := factory.ParseEvent(ev.Body)
		require.NoError(t, err, ev.Event)
		assert.Equal(t, factory.EventTarget{Repo: testenv.Repo, Issue: 4, RevisePR: pr.Number}, got, ev.Event)
	}

	comments, err := env.Client.ListReviewComments(ctx, testenv.Repo, pr.Number)
	require.NoError(t, err)
	_, err = env.Client.ReplyToReviewComment(ctx, testenv.Repo, pr.Number, comments[0].ID, "Revised.")
	require.NoError(t, err)
	for _, p := range env.Sim.Pulls(testenv.Repo.String()) {
		for _, r := range p.Reviews {
			if r.Author != testenv.Bot {
				continue
			}
			echoes, err := env.Sim.ReviewEvents(testenv.Repo.String(), r.ID, 7)
			require.NoError(t, err)
			for _, ev := range echoes {
				got, err := factory.ParseEvent(ev.Body)
				require.NoError(t, err)
				if ev.Event == "pull_request_review_comment" {
					assert.Zero(t, got.RevisePR, "%s of the bot's reply", ev.Event)
				}
			}
		}
	}
}
