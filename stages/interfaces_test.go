package stages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestInterfaceDesignFeedsBackPathsDiagnosticsAndContracts(t *testing.T) {
	t.Parallel()
	f := newFHFixture(t, fhRegistryFiles(t))
	f.deps.Domain = startGoService(t)
	f.deps.Registry = fhRegistry(t)
	f.env.Sim.SeedFiles(testenv.Repo.String(), specBranch(f.issue), map[string]string{specPath(f.issue): "# Spec\n\nAn hourly counter.\n"})
	f.addJSON(t, prompts.InterfaceDesign, design(".github/workflows/x.yml", "on: push\n"))
	f.addJSON(t, prompts.InterfaceDesign, design("counter/hourly.go", "package counter\n\nfunc Broken() int { return \"x\" }\n"))
	f.addJSON(t, prompts.InterfaceDesign, design("counter/hourly.go", "package counter\n\n//cogworks:contract SWD-IF-CAN-01 baud_rate\nconst Baud = 250000\n"))
	f.addJSON(t, prompts.InterfaceDesign, design("counter/hourly.go", goodInterface))
	snap := f.snapshot()
	snap.Artifacts.SpecBranch, snap.Artifacts.SpecPR = specBranch(f.issue), 99
	res, err := f.run(t, pipeline.StageInterfaceDesign, snap)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)

	require.Equal(t, 4, f.requests(prompts.InterfaceDesign))
	assert.Contains(t, f.userPrompt(t, prompts.InterfaceDesign, 0), "An hourly counter.", "the spec is in the prompt")
	assert.Contains(t, f.userPrompt(t, prompts.InterfaceDesign, 0), "SWD-IF-CAN-01", "registry contracts are in the context")
	assert.Contains(t, f.userPrompt(t, prompts.InterfaceDesign, 1), `generated path ".github/workflows/x.yml": writing under .github/workflows/ is not allowed`)
	third := f.userPrompt(t, prompts.InterfaceDesign, 2)
	assert.Contains(t, third, "counter/hourly.go:3")
	assert.Contains(t, third, "blocking")
	fourth := f.userPrompt(t, prompts.InterfaceDesign, 3)
	assert.Contains(t, fourth, "contract violation")
	assert.Contains(t, fourth, "SWD-IF-CAN-01 baud_rate")

	pulls := f.env.Sim.Pulls(testenv.Repo.String())
	require.Len(t, pulls, 1)
	assert.Equal(t, "cogworks/1/interfaces", pulls[0].Head)
	assert.Contains(t, pulls[0].Body, "Refs #1, builds on #99")
	assert.Equal(t, goodInterface, f.env.Sim.BranchFiles(testenv.Repo.String(), "cogworks/1/interfaces")["counter/hourly.go"])
	assert.Equal(t, pulls[0].Number, snap.Artifacts.InterfacePR)
	assert.Equal(t, design("counter/hourly.go", goodInterface).Interfaces, snap.Interfaces)

	// The list is recovered from the PR when the snapshot is lost.
	again := f.snapshot()
	f.env.Sim.ResetRequests()
	_, err = f.run(t, pipeline.StageInterfaceDesign, again)
	require.NoError(t, err)
	assert.Equal(t, snap.Interfaces, again.Interfaces)
	assert.Zero(t, fhWrites(f.env.Sim))
	assert.Equal(t, 4, f.requests(prompts.InterfaceDesign))
}
