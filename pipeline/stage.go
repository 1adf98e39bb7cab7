package pipeline

import "fmt"

// Stage is a phase of the pipeline. Its string form is the suffix of the
// cogworks:stage:<s> label.
type Stage string

// The pipeline stages in order, then the two terminal stages.
const (
	StageIntake             Stage = "intake"
	StageArchitecture       Stage = "architecture"
	StageInterfaceDesign    Stage = "interface-design"
	StagePlanning           Stage = "planning"
	StageCodeGeneration     Stage = "code-generation"
	StageScenarioValidation Stage = "scenario-validation"
	StageReview             Stage = "review"
	StageIntegration        Stage = "integration"
	StageComplete           Stage = "complete"
	StageFailed             Stage = "failed"
)

// Stages lists every stage in pipeline order, terminal ones last.
var stageOrder = []Stage{
	StageIntake, StageArchitecture, StageInterfaceDesign, StagePlanning,
	StageCodeGeneration, StageScenarioValidation, StageReview, StageIntegration,
	StageComplete, StageFailed,
}

// AllStages returns every stage in pipeline order, terminal ones last.
func AllStages() []Stage { return append([]Stage(nil), stageOrder...) }

// ParseStage parses a stage name.
func ParseStage(s string) (Stage, error) {
	for _, st := range stageOrder {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown stage %q", s)
}

// Valid reports whether s is a known stage.
func (s Stage) Valid() bool {
	_, err := ParseStage(string(s))
	return err == nil
}

// Terminal reports whether s ends the pipeline.
func (s Stage) Terminal() bool { return s == StageComplete || s == StageFailed }

// PerSWI reports whether the stage runs once per sub-work-item.
func (s Stage) PerSWI() bool {
	switch s {
	case StageCodeGeneration, StageScenarioValidation, StageReview, StageIntegration:
		return true
	}
	return false
}

// CodeProducing reports whether the stage produces code, so that a
// safety-critical work item forces its gate to human-gated (ASSERT-PSM-004).
func (s Stage) CodeProducing() bool {
	switch s {
	case StageInterfaceDesign, StageCodeGeneration, StageReview, StageIntegration:
		return true
	}
	return false
}
