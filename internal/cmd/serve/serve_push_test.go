package serve_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// TestServePushOnMainUpdatesTheOpenPRsOfWaitingItems: an App's serve
// takes a push delivery that moved main and updates the branch of a work
// item's open PR with main (the item waits at its gate meanwhile); the
// push of that very update, and a push to any other branch, are answered
// without a GitHub request.
func TestServePushOnMainUpdatesTheOpenPRsOfWaitingItems(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fx := newAppFixture(t)
	provider, err := demo.Script()
	require.NoError(t, err)
	repo := fx.repo.String()
	n := fx.sim.SeedIssue(repo, democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
	fx.sim.LabelIssue(repo, n, democmd.DemoHuman, pipeline.LabelRun)
	srv, _ := fx.replica(t, provider)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"label-1", "issues", issueEvent(fx.repo, n, "labeled")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	require.Contains(t, fx.sim.Labels(repo, n), pipeline.LabelAwaitingReview, "the item waits at the architecture gate")

	// A PR of the bot's on main, which main then moves past.
	fx.sim.AddToken("ghs_bot_for_the_test", "cogworks[bot]")
	bot, err := github.New(ctx, github.Options{BaseURL: fx.url + "/api/v3/", Token: "ghs_bot_for_the_test", CacheSize: -1})
	require.NoError(t, err)
	branch := fmt.Sprintf("cogworks/%d/swi-1", n)
	fx.sim.SeedFiles(repo, branch, map[string]string{"extra.go": "package telemetry\n"})
	pr, err := bot.CreatePull(ctx, fx.repo, github.NewPull{Title: "swi-1", Head: branch, Base: "main"})
	require.NoError(t, err)
	before, _ := fx.sim.BranchSHA(repo, "main")
	fx.sim.SeedFiles(repo, "main", map[string]string{"NEWS.md": "news\n"})
	head, _ := fx.sim.BranchSHA(repo, branch)

	for i, other := range []struct{ branch, pusher string }{{branch, "cogworks[bot]"}, {"main", democmd.DemoHuman}} {
		from := before
		if other.branch == branch {
			from = head
		}
		ev, err := fx.sim.PushEvent(repo, other.branch, from, other.pusher, testInstallation)
		require.NoError(t, err)
		fx.sim.ResetRequests()
		require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{fmt.Sprintf("push-%d", i), "push", ev.Body}))
		require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
		if other.branch == branch {
			assert.Zero(t, fx.sim.RequestCount(), "a push to CogWorks's own branch costs nothing")
		}
	}
	now, _ := fx.sim.BranchSHA(repo, branch)
	c, err := bot.GetCommit(ctx, fx.repo, now)
	require.NoError(t, err)
	mainHead, _ := fx.sim.BranchSHA(repo, "main")
	assert.Equal(t, []string{head, mainHead}, c.Parents, "main merged on top of the branch")
	assert.Equal(t, "news\n", fx.sim.BranchFiles(repo, branch)["NEWS.md"])
	assert.Contains(t, fx.sim.Labels(repo, n), pipeline.LabelAwaitingReview, "the item still waits at its gate")
	p, err := bot.GetPull(ctx, fx.repo, pr.Number)
	require.NoError(t, err)
	assert.Equal(t, "main", p.Base)
}
