package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
)

// Executors returns the executor of every operational stage of the
// pipeline machine (pipeline.StateMachine): the one place a stage is
// registered. pipeline's machine test checks that every operational state
// has an executor here.
func Executors(d Deps) map[pipeline.Stage]engine.StageExecutor {
	return map[pipeline.Stage]engine.StageExecutor{
		// Issue to plan (docs/spec.md §5 items 1–4).
		pipeline.StageIntake:          newIntakeExecutor(d),
		pipeline.StageArchitecture:    newArchitectureExecutor(d),
		pipeline.StageInterfaceDesign: newInterfaceExecutor(d),
		pipeline.StagePlanning:        newPlanningExecutor(d),
		// Per sub-work-item (docs/spec.md §5 items 5–8, §13).
		pipeline.StageCodeGeneration:     newCodeGenExecutor(d),
		pipeline.StageScenarioValidation: newScenarioExecutor(d),
		pipeline.StageReview:             newReviewExecutor(d),
		pipeline.StageIntegration:        newIntegrationExecutor(d),
	}
}
