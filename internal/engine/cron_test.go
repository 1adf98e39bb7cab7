package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestRevisionQueryFindsReviewedPullRequests: the cron's search finds the
// bot's open PR once a review updated it inside the window, and not a
// person's PR nor one untouched since before the window.
func TestRevisionQueryFindsReviewedPullRequests(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	env.Sim.SeedFiles(testenv.Repo.String(), "cogworks/4/swi-1", map[string]string{"a.go": "package a\n"})
	env.Sim.SeedFiles(testenv.Repo.String(), "feature", map[string]string{"b.go": "package b\n"})
	ours, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "A", Head: "cogworks/4/swi-1", Base: "main"})
	require.NoError(t, err)
	_, err = env.ClientAs(t, "alice").CreatePull(ctx, testenv.Repo, github.NewPull{Title: "B", Head: "feature", Base: "main"})
	require.NoError(t, err)

	search := func() []int {
		hits, err := env.Client.SearchIssues(ctx, RevisionQuery("repo:"+testenv.Repo.String(), testenv.Bot, env.Clock.Now().Add(-time.Hour)))
		require.NoError(t, err)
		var prs []int
		for _, h := range hits {
			prs = append(prs, h.Number)
		}
		return prs
	}
	assert.Equal(t, []int{ours.Number}, search(), "the bot's PR, just opened")
	env.Clock.Advance(2 * time.Hour)
	assert.Empty(t, search(), "untouched since before the window")
	_, err = env.ClientAs(t, "alice").CreateComment(ctx, testenv.Repo, ours.Number, "/cogworks fix say what a does")
	require.NoError(t, err)
	assert.Equal(t, []int{ours.Number}, search(), "a comment brings it back into the window")
}

func TestRevisionQueryNamesAnAppByItsSlug(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, "repo:a/b is:pr is:open author:app/cogworks updated:>=2026-01-02T03:04:05Z", RevisionQuery("repo:a/b", "cogworks[bot]", since))
	assert.Equal(t, "org:a is:pr is:open author:cw-bot updated:>=2026-01-02T03:04:05Z", RevisionQuery("org:a", "cw-bot", since))
}
