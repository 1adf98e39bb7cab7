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
	"github.com/cogworks/cogworks/stages/revision"
	scenariostage "github.com/cogworks/cogworks/stages/scenario"
)

// Executors returns the executor of every operational stage of the
// pipeline machine (pipeline.StateMachine): the one place a stage is
// registered. pipeline's machine test checks that every operational state
// has an executor here. Every stage gets the shared deps and its own
// GitHub port; only scenario validation also gets the held-out scenarios
// and twins.
func Executors(d Deps) map[pipeline.Stage]engine.StageExecutor {
	shared := d.Deps
	return map[pipeline.Stage]engine.StageExecutor{
		// Issue to plan (docs/spec.md §5 items 1–4).
		pipeline.StageIntake:          intake.New(shared, d.GitHub),
		pipeline.StageArchitecture:    architecture.New(shared, d.GitHub),
		pipeline.StageInterfaceDesign: interfaces.New(shared, d.GitHub),
		pipeline.StagePlanning:        planning.New(shared, d.GitHub),
		// Per sub-work-item (docs/spec.md §5 items 5–8, §13).
		pipeline.StageCodeGeneration: codegen.New(codegen.Deps{Deps: shared, Baselines: d.Baselines}, d.GitHub),
		pipeline.StageScenarioValidation: scenariostage.New(scenariostage.Deps{
			Deps: shared, Scenarios: d.Scenarios, Twins: d.Twins,
		}, d.GitHub),
		pipeline.StageReview:      review.New(shared, d.GitHub),
		pipeline.StageIntegration: integration.New(shared, d.GitHub),
	}
}

// Reviser returns the revision of the work items' PRs on review feedback
// (engine.Deps.Reviser): code generation's attempt and the review passes
// for a sub-work-item's PR, architecture's and interface design's own
// calls for the specification and interface PRs, with the same ports as
// their stages.
func Reviser(d Deps) engine.PRReviser {
	return revision.Step{GitHub: d.GitHub,
		Code:   codegen.New(codegen.Deps{Deps: d.Deps, Baselines: d.Baselines}, d.GitHub),
		Review: review.New(d.Deps, d.GitHub),
		Spec:   architecture.New(d.Deps, d.GitHub),
		Design: interfaces.New(d.Deps, d.GitHub)}
}

// ReviserOf returns the revision built from the code-generation and review
// executors of execs (as Executors made them; an executor wrapped by the
// wiring is unwrapped through its Unwrap method), nil when execs holds
// others (a test's fakes): revisions are then not wired.
func ReviserOf(gh GitHub, execs map[pipeline.Stage]engine.StageExecutor) engine.PRReviser {
	cg, ok1 := unwrap(execs[pipeline.StageCodeGeneration]).(codegen.Executor)
	rv, ok2 := unwrap(execs[pipeline.StageReview]).(review.Executor)
	if !ok1 || !ok2 || gh == nil {
		return nil
	}
	step := revision.Step{GitHub: gh, Code: cg, Review: rv}
	// The design stages' revisions are wired when their executors are
	// the real ones; a PR of theirs is otherwise answered "not wired".
	if a, ok := unwrap(execs[pipeline.StageArchitecture]).(architecture.Executor); ok {
		step.Spec = a
	}
	if i, ok := unwrap(execs[pipeline.StageInterfaceDesign]).(interfaces.Executor); ok {
		step.Design = i
	}
	return step
}

// CIReviserOf is the CI-feedback step over the code-generation and
// review executors of execs, nil when either is missing or gh cannot read
// CI results.
func CIReviserOf(gh GitHub, execs map[pipeline.Stage]engine.StageExecutor) engine.CIReviser {
	cg, ok1 := unwrap(execs[pipeline.StageCodeGeneration]).(codegen.Executor)
	rv, ok2 := unwrap(execs[pipeline.StageReview]).(review.Executor)
	ci, ok3 := gh.(revision.CIStepGitHub)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	return revision.CIStep{GitHub: ci, Code: cg, Review: rv}
}

func unwrap(e engine.StageExecutor) engine.StageExecutor {
	for {
		w, ok := e.(interface{ Unwrap() engine.StageExecutor })
		if !ok {
			return e
		}
		e = w.Unwrap()
	}
}
