package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/intake"
	"github.com/cogworks/cogworks/stages/integration"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/planning"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/scenario"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Executors returns the executor of every operational stage of the
// pipeline machine (pipeline.StateMachine): the one place a stage is
// registered. pipeline's machine test checks that every operational state
// has an executor here.
func Executors(d stagekit.Deps) map[pipeline.Stage]engine.StageExecutor {
	return map[pipeline.Stage]engine.StageExecutor{
		// Issue to plan (docs/spec.md §5 items 1–4).
		pipeline.StageIntake:          intake.New(d),
		pipeline.StageArchitecture:    architecture.New(d),
		pipeline.StageInterfaceDesign: interfaces.New(d),
		pipeline.StagePlanning:        planning.New(d),
		// Per sub-work-item (docs/spec.md §5 items 5–8, §13).
		pipeline.StageCodeGeneration:     codegen.New(d),
		pipeline.StageScenarioValidation: scenario.New(d),
		pipeline.StageReview:             review.New(d),
		pipeline.StageIntegration:        integration.New(d),
	}
}
