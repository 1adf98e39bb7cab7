package factory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestParseEventCIPayloadsAskForACIRevision: the simulator's deliveries
// of a failed workflow run on a CogWorks PR's head (one check_run per
// job, the check_suite, the workflow_run) each name the PR, the head that
// failed and the work item for the Action, as does a cancelled run (to be
// re-run once); a run that could not start and a run on a person's
// branch ask for nothing.
func TestParseEventCIPayloadsAskForACIRevision(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	const branch = "cogworks/4/swi-1"
	env.Sim.SeedFiles(testenv.Repo.String(), branch, map[string]string{"a.go": "package a\n"})
	pr, err := env.Client.CreatePull(ctx, testenv.Repo, github.NewPull{Title: "A", Head: branch, Base: "main"})
	require.NoError(t, err)
	head, err := env.Client.GetBranchHead(ctx, testenv.Repo, branch)
	require.NoError(t, err)
	job := func(conclusion string) githubsim.CIJob {
		return githubsim.CIJob{Name: "test", Conclusion: conclusion, RunnerName: "GitHub Actions 3", Log: "FAIL\n",
			Steps: []githubsim.CIStep{{Name: "Set up job", Conclusion: "success"}, {Name: "Run go test", Conclusion: conclusion}}}
	}
	events := func(run githubsim.CIRun) []githubsim.WebhookEvent {
		t.Helper()
		ids, err := env.Sim.SeedWorkflowRun(testenv.Repo.String(), run)
		require.NoError(t, err)
		evs, err := env.Sim.WorkflowRunEvents(testenv.Repo.String(), ids.Run, 7)
		require.NoError(t, err)
		require.NotEmpty(t, evs)
		return evs
	}

	for _, ev := range events(githubsim.CIRun{Branch: branch, Jobs: []githubsim.CIJob{job("failure")}}) {
		got, err := factory.ParseEvent(ev.Body)
		require.NoError(t, err, ev.Event)
		assert.Equal(t, factory.EventTarget{Repo: testenv.Repo, Issue: 4, CIPR: pr.Number, CIHead: head.SHA}, got, ev.Event)
	}
	// A cancelled run is the infrastructure's: the CI step re-runs it
	// once, so it is asked for too.
	for _, ev := range events(githubsim.CIRun{Branch: branch, Jobs: []githubsim.CIJob{job("cancelled")}}) {
		got, err := factory.ParseEvent(ev.Body)
		require.NoError(t, err, ev.Event)
		assert.Equal(t, pr.Number, got.CIPR, "%s of a cancelled run", ev.Event)
	}
	for _, ev := range events(githubsim.CIRun{Branch: branch, Conclusion: "startup_failure"}) {
		got, err := factory.ParseEvent(ev.Body)
		require.NoError(t, err, ev.Event)
		assert.Zero(t, got.CIPR, "%s of a run that could not start", ev.Event)
		assert.NotEmpty(t, got.Ignore, ev.Event)
	}
	env.Sim.SeedFiles(testenv.Repo.String(), "feature", map[string]string{"a.go": "package a\n// x\n"})
	for _, ev := range events(githubsim.CIRun{Branch: "feature", Jobs: []githubsim.CIJob{job("failure")}}) {
		got, err := factory.ParseEvent(ev.Body)
		require.NoError(t, err, ev.Event)
		assert.Zero(t, got.CIPR, "%s on a person's branch", ev.Event)
	}
}

// TestParseEventMergedCogWorksPRRestacks: the Action restacks after the
// merge of a CogWorks PR, not after another PR's merge or an unmerged
// close.
func TestParseEventMergedCogWorksPRRestacks(t *testing.T) {
	t.Parallel()
	repo := `"repository":{"full_name":"acme/widgets"},"sender":{"login":"alice","type":"User"}`
	for _, tt := range []struct {
		name, head, merged string
		want               bool
	}{
		{"a merged CogWorks PR", "cogworks/4/swi-1", "true", true},
		{"closed unmerged", "cogworks/4/swi-1", "false", false},
		{"another PR merged", "feature", "true", false},
	} {
		got, err := factory.ParseEvent([]byte(`{"action":"closed","pull_request":{"number":9,"merged":` + tt.merged +
			`,"head":{"ref":"` + tt.head + `"}},` + repo + `}`))
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, got.Restack, tt.name)
	}
}
