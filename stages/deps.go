package stages

import (
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/intake"
	"github.com/cogworks/cogworks/stages/integration"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/planning"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/revision"
	scenariostage "github.com/cogworks/cogworks/stages/scenario"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// GitHub is what the stage executors need from GitHub together (a subset
// of *github.Client): the union of the ports the stage packages declare.
// Executors hands each stage only its own port.
type GitHub interface {
	intake.GitHub
	architecture.GitHub
	interfaces.GitHub
	planning.ReplanGitHub
	codegen.GitHub
	scenariostage.GitHub
	review.GitHub
	integration.GitHub
	revision.GitHub
}

// Deps are what the wiring (internal/cmd/factory) assembles for the executors: the
// GitHub client, the ports and settings every stage shares, and the
// held-out scenarios with their twins, which Executors hands to scenario
// validation alone.
type Deps struct {
	GitHub GitHub
	stagekit.Deps
	// Scenarios are loaded from the workspace (holdout: never given to
	// code generation or any stage but scenario validation).
	Scenarios []scenario.Scenario
	Twins     scenario.Twins
	// Baselines is code generation's cache of base-tree test runs
	// (codegen.Deps.Baselines); nil means one cache per step.
	Baselines *codegen.BaselineCache
}
