package interfaces_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestInterfaceDesignFeedsBackPathsDiagnosticsAndContracts(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, stagetest.FHRegistryFiles(t))
	f.Deps.Domain = stagetest.StartGoService(t)
	f.Deps.Registry = stagetest.FHRegistry(t)
	f.Env.Sim.SeedFiles(testenv.Repo.String(), stagekit.SpecBranch(f.Issue), map[string]string{stagekit.SpecPath(f.Issue): "# Spec\n\nAn hourly counter.\n"})
	f.AddJSON(t, prompts.InterfaceDesign, stagetest.Design(".github/workflows/x.yml", "on: push\n"))
	f.AddJSON(t, prompts.InterfaceDesign, stagetest.Design("counter/hourly.go", "package counter\n\nfunc Broken() int { return \"x\" }\n"))
	f.AddJSON(t, prompts.InterfaceDesign, stagetest.Design("counter/hourly.go", "package counter\n\n//cogworks:contract SWD-IF-CAN-01 baud_rate\nconst Baud = 250000\n"))
	f.AddJSON(t, prompts.InterfaceDesign, stagetest.Design("counter/hourly.go", stagetest.GoodInterface))
	snap := f.Snapshot()
	snap.Artifacts.SpecBranch, snap.Artifacts.SpecPR = stagekit.SpecBranch(f.Issue), 99
	res, err := f.Run(t, pipeline.StageInterfaceDesign, snap)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)

	require.Equal(t, 4, f.Requests(prompts.InterfaceDesign))
	assert.Contains(t, f.UserPrompt(t, prompts.InterfaceDesign, 0), "An hourly counter.", "the spec is in the prompt")
	assert.Contains(t, f.UserPrompt(t, prompts.InterfaceDesign, 0), "SWD-IF-CAN-01", "registry contracts are in the context")
	assert.Contains(t, f.UserPrompt(t, prompts.InterfaceDesign, 1), `generated path ".github/workflows/x.yml": writing under .github/workflows/ is not allowed`)
	third := f.UserPrompt(t, prompts.InterfaceDesign, 2)
	assert.Contains(t, third, "counter/hourly.go:3")
	assert.Contains(t, third, "blocking")
	fourth := f.UserPrompt(t, prompts.InterfaceDesign, 3)
	assert.Contains(t, fourth, "contract violation")
	assert.Contains(t, fourth, "SWD-IF-CAN-01 baud_rate")

	pulls := f.Env.Sim.Pulls(testenv.Repo.String())
	require.Len(t, pulls, 1)
	assert.Equal(t, "cogworks/1/interfaces", pulls[0].Head)
	assert.Contains(t, pulls[0].Body, "Refs #1, builds on #99")
	assert.Equal(t, stagetest.GoodInterface, f.Env.Sim.BranchFiles(testenv.Repo.String(), "cogworks/1/interfaces")["counter/hourly.go"])
	assert.Equal(t, pulls[0].Number, snap.Artifacts.InterfacePR)
	assert.Equal(t, stagetest.Design("counter/hourly.go", stagetest.GoodInterface).Interfaces, snap.Interfaces)

	// The list is recovered from the PR when the snapshot is lost.
	again := f.Snapshot()
	f.Env.Sim.ResetRequests()
	_, err = f.Run(t, pipeline.StageInterfaceDesign, again)
	require.NoError(t, err)
	assert.Equal(t, snap.Interfaces, again.Interfaces)
	assert.Zero(t, stagetest.FHWrites(f.Env.Sim))
	assert.Equal(t, 4, f.Requests(prompts.InterfaceDesign))
}
