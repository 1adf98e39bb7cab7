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
	"github.com/cogworks/cogworks/pipeline"
)

// serveWaitingBudget is what a delivery costs `serve` in GitHub requests
// when its item waits at a gate: the default branch head (config and files
// are cached per commit), the issue's labels and the comments.
const serveWaitingBudget = 3

// TestServeRequestBudget measures what deliveries cost an App's serve in
// GitHub requests: an event on an issue without cogworks:run and a comment
// that is no /cogworks command cost none, and an issue event on an item
// waiting at a gate costs serveWaitingBudget.
func TestServeRequestBudget(t *testing.T) {
	t.Parallel()
	fx := newAppFixture(t)
	provider, err := demo.Script()
	require.NoError(t, err)
	n := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
	fx.sim.LabelIssue(fx.repo.String(), n, democmd.DemoHuman, pipeline.LabelRun)
	other := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, "Typo in README", "s/teh/the/")
	srv, _ := fx.replica(t, provider)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"label-1", "issues", issueEvent(fx.repo, n, "labeled")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	require.Contains(t, fx.sim.Labels(fx.repo.String(), n), pipeline.LabelAwaitingReview, "the item waits at the architecture gate")

	fx.sim.ResetRequests()
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"open-other", "issues", issueEvent(fx.repo, other, "opened")}))
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"chat", "issue_comment", commentEvent(fx.repo, n, 499)}))
	// A person relabelling a sub-work-item's issue: its labels are its
	// own (planning never gives it cogworks:run), so the payload decides.
	subEvent := fmt.Appendf(nil, `{"action":"labeled","issue":{"number":%d,"labels":[{"name":"cogworks:sub-work-item"},{"name":"cogworks:status:in-progress"},{"name":"bug"}]},"label":{"name":"bug"},"repository":{"full_name":%q},"installation":{"id":%d},"sender":{"login":%q,"type":"User"}}`,
		other+1, fx.repo, testInstallation, democmd.DemoHuman)
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"sub-issue", "issues", subEvent}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	assert.Zero(t, fx.sim.RequestCount(), "an issue without cogworks:run, a sub-work-item's event and a plain comment cost nothing")

	for i := range 3 {
		fx.sim.ResetRequests()
		id := fmt.Sprintf("edit-%d", i)
		require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{id, "issues", updatedAt(issueEvent(fx.repo, n, "edited"), i)}))
		require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
		var got []string
		for _, r := range fx.sim.Requests() {
			got = append(got, r.Method+" "+r.Path)
			assert.Equal(t, http.MethodGet, r.Method, "a waiting gate writes nothing")
		}
		assert.LessOrEqual(t, len(got), serveWaitingBudget, "delivery %d: %v", i, got)
	}
	assert.Contains(t, fx.sim.Labels(fx.repo.String(), n), pipeline.LabelAwaitingReview, "still waiting")
}

// TestServeDefersJobsBelowTheRateReserve: once an installation's REST
// window is down to the reserve, a job writes nothing and ends deferred.
// The figures are those of the replica's last answer from GitHub for the
// installation (the first job of an installation always runs).
func TestServeDefersJobsBelowTheRateReserve(t *testing.T) {
	t.Parallel()
	fx := newAppFixture(t)
	fx.rateReserve = 50
	provider, err := demo.Script()
	require.NoError(t, err)
	first := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
	fx.sim.LabelIssue(fx.repo.String(), first, democmd.DemoHuman, pipeline.LabelRun)
	n := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
	fx.sim.LabelIssue(fx.repo.String(), n, democmd.DemoHuman, pipeline.LabelRun)
	srv, m := fx.replica(t, provider)
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"label-first", "issues", issueEvent(fx.repo, first, "labeled")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	require.Contains(t, fx.sim.Labels(fx.repo.String(), first), pipeline.LabelAwaitingReview)

	// The window runs low (other apps, other replicas); a waiting gate's
	// reads bring the figures to this replica.
	fx.sim.SetRateLimitRemaining(40)
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"edit-first", "issues", issueEvent(fx.repo, first, "edited")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	fx.sim.ResetRequests()
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"label-n", "issues", issueEvent(fx.repo, n, "labeled")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	for _, r := range fx.sim.Requests() {
		assert.Equal(t, http.MethodGet, r.Method, "a deferred job writes nothing: %s %s", r.Method, r.Path)
	}
	assert.Equal(t, []string{pipeline.LabelRun}, fx.sim.Labels(fx.repo.String(), n), "the item did not move")
	assert.InDelta(t, 1, counterValue(t, m, "cogworks_steps_total", map[string]string{"outcome": "deferred"}), 0)

	// The window resets; the next delivery steps the item.
	fx.sim.SetRateLimitRemaining(5000)
	require.Equal(t, http.StatusAccepted, post(t, hs.URL, delivery{"edit-n", "issues", issueEvent(fx.repo, n, "edited")}))
	require.Eventually(t, srv.Idle, 60*time.Second, 10*time.Millisecond)
	assert.Contains(t, fx.sim.Labels(fx.repo.String(), n), pipeline.LabelAwaitingReview)
}
