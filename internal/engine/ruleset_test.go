package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestRulesetRefusalStopsTheStageNamingIt: a repository ruleset that
// restricts cogworks/** branches refuses the stage's branch with a 422.
// Before, idem.WriteFiles read the 422 as a concurrent creation, tried
// again and reported "branch created concurrently", with no word of the
// ruleset; now the stage fails at once (not transient), and the failure
// report names the ruleset and what to change.
func TestRulesetRefusalStopsTheStageNamingIt(t *testing.T) {
	f := newFixture(t, pipeline.LabelRun)
	repo := testenv.Repo
	f.env.Sim.SetBranchRuleset(repo.String(), "cogworks/**")
	f.deps.Executors[pipeline.StageIntake] = StageExecutorFunc(func(ctx context.Context, in StageInput) (StageResult, error) {
		_, _, err := idem.WriteFiles(ctx, f.env.Client, repo, idem.Commit{
			Branch: "cogworks/1/spec", From: "main", Message: "spec", Files: map[string]string{"docs/spec.md": "x\n"},
		})
		return StageResult{}, err
	})
	res, err := Step(context.Background(), f.deps, f.ref())
	require.Error(t, err)
	assert.False(t, isTransient(err), "a ruleset refuses the same write every time")
	assert.Equal(t, OutcomeFailed, res.Outcome)
	var report string
	for _, c := range f.env.Sim.Comments(repo.String(), f.issue) {
		if strings.Contains(c.Body, audit.Marker(audit.FailureKey(f.issue, "intake"))) {
			report = c.Body
		}
	}
	require.NotEmpty(t, report)
	assert.Contains(t, report, "refused by a repository ruleset")
	assert.Contains(t, report, "#### What to configure")
	assert.Contains(t, report, "bypass list")
	assert.NotContains(t, report, "concurrently")
}
