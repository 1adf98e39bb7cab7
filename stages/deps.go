package stages

import (
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Deps are what the wiring (internal/cli) assembles for the executors: the
// ports and settings every stage shares, and the held-out scenarios with
// their twins, which Executors hands to scenario validation alone.
type Deps struct {
	stagekit.Deps
	// Scenarios are loaded from the workspace (holdout: never given to
	// code generation or any stage but scenario validation).
	Scenarios []scenario.Scenario
	Twins     scenario.Twins
}
