package architecture_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestAssertARCH004_ValidationFailureRetriedWithErrors(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Cfg.Constraints = stagetest.SpecConstraints
	bad := stagetest.ValidSpec()
	bad.AffectedModules = append(bad.AffectedModules, architecture.SpecModule{Name: "odometer"})
	f.AddJSON(t, prompts.Architecture, bad)
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	snap := f.Snapshot()
	snap.Classification = &stagetest.SampleClassification
	res, err := f.Run(t, pipeline.StageArchitecture, snap)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)

	require.Equal(t, 2, f.Requests(prompts.Architecture), "the LLM was re-invoked")
	first, second := f.UserPrompt(t, prompts.Architecture, 0), f.UserPrompt(t, prompts.Architecture, 1)
	assert.NotContains(t, first, "odometer")
	assert.Contains(t, second, `module "odometer" does not exist in the repository and is not marked new`)
	assert.Contains(t, second, "Attempt 1 was rejected")
	assert.Contains(t, first, "brake never imports telemetry", "ADRs are in the context")
	assert.Contains(t, first, "Write table-driven tests", "coding standards are in the context")
	assert.Contains(t, first, stagekit.ForbiddenImportsText(stagetest.SpecConstraints.ForbiddenImports), "constraints are in the context, in the one wording")
	assert.Equal(t, 2, snap.Ledger.PerStage["architecture"].Calls)

	pulls := f.Env.Sim.Pulls(testenv.Repo.String())
	require.Len(t, pulls, 1)
	pr := pulls[0]
	assert.Equal(t, "CogWorks spec for #1: Count widgets per hour", pr.Title)
	assert.Equal(t, "cogworks/1/spec", pr.Head)
	assert.Equal(t, "main", pr.Base)
	assert.Contains(t, pr.Body, "Refs #1")
	assert.Contains(t, pr.Body, "needs human approval")
	assert.Equal(t, pipeline.Artifacts{SpecBranch: "cogworks/1/spec", SpecPR: pr.Number}, snap.Artifacts)
	files := f.Env.Sim.BranchFiles(testenv.Repo.String(), "cogworks/1/spec")
	assert.Equal(t, architecture.RenderSpecification(1, "Count widgets per hour", stagetest.ValidSpec()), files["docs/cogworks/1-specification.md"])
}

func TestArchitectureExhaustedRetriesEscalate(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Cfg.Budgets.StageMaxRetries = 2
	f.Cfg.Constraints = stagetest.SpecConstraints
	bad := stagetest.ValidSpec()
	bad.DependencyChanges = []architecture.SpecDependency{{From: "brake", To: "telemetry", Change: "add"}}
	f.AddJSON(t, prompts.Architecture, bad)
	f.AddJSON(t, prompts.Architecture, bad)
	_, err := f.Run(t, pipeline.StageArchitecture, f.Snapshot())
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "%v", err)
	require.Len(t, esc.Attempts, 2)
	assert.Contains(t, esc.Attempts[1].Diagnostics[0], "forbidden_imports")
	assert.Empty(t, f.Env.Sim.Pulls(testenv.Repo.String()), "nothing is committed")
}

func TestAssertXVAL004_ArchitectureExecutorCatchesBusOverload(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Deps.Registry = stagetest.FHRegistry(t)
	over := stagetest.ValidSpec()
	over.ProposedValues = []architecture.SpecProposedValue{
		{Interface: "SWD-IF-CAN-01", Parameter: "messages.Hourly.size_bytes", Value: 8},
		{Interface: "SWD-IF-CAN-01", Parameter: "messages.Hourly.cycle_ms", Value: 0.25},
	}
	fits := stagetest.ValidSpec()
	fits.ProposedValues = []architecture.SpecProposedValue{
		{Interface: "SWD-IF-CAN-01", Parameter: "messages.Hourly.size_bytes", Value: 8},
		{Interface: "SWD-IF-CAN-01", Parameter: "messages.Hourly.cycle_ms", Value: 1000},
	}
	f.AddJSON(t, prompts.Architecture, over)
	f.AddJSON(t, prompts.Architecture, fits)
	_, err := f.Run(t, pipeline.StageArchitecture, f.Snapshot())
	require.NoError(t, err)
	second := f.UserPrompt(t, prompts.Architecture, 1)
	assert.Contains(t, second, "interface SWD-IF-CAN-01 parameter max_bus_load")
	assert.Contains(t, second, "computed CAN bus load")
}

func TestAssertIDEM001_ArchitectureRerunFindsExistingPR(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageArchitecture, snap)
	require.NoError(t, err)
	first := snap.Artifacts.SpecPR

	// The snapshot was lost: a fresh one re-runs the stage.
	f.Env.Sim.ResetRequests()
	again := f.Snapshot()
	res, err := f.Run(t, pipeline.StageArchitecture, again)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, first, again.Artifacts.SpecPR, "the existing PR is detected and used")
	assert.Len(t, f.Env.Sim.Pulls(testenv.Repo.String()), 1, "no duplicate PR")
	assert.Zero(t, stagetest.FHWrites(f.Env.Sim), "nothing is written again")
	assert.Equal(t, 1, f.Requests(prompts.Architecture), "no new LLM call")
}

func TestArchitectureCrashAfterCommitOpensPRWithoutLLM(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	// A previous run committed the spec and crashed before opening the PR.
	f.Env.Sim.SeedFiles(testenv.Repo.String(), "cogworks/1/spec", map[string]string{"docs/cogworks/1-specification.md": "# spec\n"})
	snap := f.Snapshot()
	_, err := f.Run(t, pipeline.StageArchitecture, snap)
	require.NoError(t, err)
	assert.Zero(t, f.Requests(prompts.Architecture))
	require.Len(t, f.Env.Sim.Pulls(testenv.Repo.String()), 1)
	assert.Equal(t, "cogworks/1/spec", snap.Artifacts.SpecBranch)
}

// GitHub refuses a pull request to a workflow's GITHUB_TOKEN until the
// repository allows it; the refusal is an escalation naming the setting.
func TestArchitectureWithGITHUBTOKENNamesTheActionsSetting(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, nil)
	f.Deps.GitHub = f.Env.ActionsClient(t, testenv.ActionsPermissions())
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	_, err := f.Run(t, pipeline.StageArchitecture, f.Snapshot())
	var esc *escalation.Error
	require.True(t, errors.As(err, &esc), "%v", err)
	assert.Equal(t, github.EscalationActionsPullRequests, esc.Code)
	assert.Contains(t, esc.Reason, "Allow GitHub Actions to create and approve pull requests")
	assert.Contains(t, esc.Reason, "cogworks:retry")

	f.Env.Sim.SetActionsCanCreatePullRequests(testenv.Repo.String(), true)
	f.AddJSON(t, prompts.Architecture, stagetest.ValidSpec())
	_, err = f.Run(t, pipeline.StageArchitecture, f.Snapshot())
	require.NoError(t, err, "allowed, the spec PR opens")
	require.Len(t, f.Env.Sim.Pulls(testenv.Repo.String()), 1)
}
