package status_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestStatusShowsTheItemsPath: `cogworks status` of a design-skipping
// bug fix names the skip and draws the item's variant of the table.
func TestStatusShowsTheItemsPath(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "fix")
	f, out, _ := cmdtest.TestFactory(t, env)
	all := f.Executors
	f.Executors = func(ctx context.Context, c factory.Client, r github.Repo, ws string, cfg config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		m, reg, err := all(ctx, c, r, ws, cfg)
		m[pipeline.StageIntake] = engine.StageExecutorFunc(func(_ context.Context, in engine.StageInput) (engine.StageResult, error) {
			return engine.StageResult{Event: pipeline.EventDone, Changes: []pipeline.Change{pipeline.SetClassification{
				Classification: classify.Classification{Type: classify.TypeBugFix, EstimatedScope: classify.Scope{Complexity: "low"}}}}}, nil
		})
		return m, reg, err
	}
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "1"))

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1"))
	assert.Contains(t, out.String(), "stage: planning")
	assert.Contains(t, out.String(), "path: skips architecture, interface-design")

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1", "--output", "mermaid"))
	assert.Contains(t, out.String(), "gate_intake --> planning")
	assert.NotContains(t, out.String(), "gate_architecture")
}
