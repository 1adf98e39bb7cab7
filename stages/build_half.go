package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
)

// buildHalf returns the executors of the per-SWI build stages: code
// generation and scenario validation.
func buildHalf(d Deps) map[pipeline.Stage]engine.StageExecutor {
	return map[pipeline.Stage]engine.StageExecutor{
		pipeline.StageCodeGeneration:     codeGenExecutor{d: d, gh: d.GitHub},
		pipeline.StageScenarioValidation: scenarioExecutor{d: d, gh: d.GitHub},
	}
}
