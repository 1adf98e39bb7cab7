package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/interfaces"
	"github.com/cogworks/cogworks/stages/restack"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/revision"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Restacker returns the restack of the work items' stacks
// (engine.Deps.Restacker): update-branch and retargeting, and a conflict
// resolved as any revision is (code generation's attempt and the review
// passes; the design stages' revisions for the specification and
// interface PRs), with the same ports as their stages. Nil when d.GitHub
// cannot restack.
func Restacker(d Deps) engine.Restacker {
	rg, ok := d.GitHub.(restack.StepGitHub)
	if !ok {
		return nil
	}
	return restackStep(rg, revision.Attempt{Code: codegen.New(codegen.Deps{Deps: d.Deps, Baselines: d.Baselines}, d.GitHub),
		Review: review.New(d.Deps, d.GitHub), Issues: d.GitHub,
		Spec: architecture.New(d.Deps, d.GitHub), Design: interfaces.New(d.Deps, d.GitHub)})
}

// RestackerOf returns the restack over gh with conflicts resolved by the
// code-generation and review executors of execs (unwrapped like
// ReviserOf's); when execs holds others (a test's fakes, a dry run),
// conflicts are reported and left as they are. Nil when gh cannot
// restack.
func RestackerOf(gh any, execs map[pipeline.Stage]engine.StageExecutor) engine.Restacker {
	rg, ok := gh.(restack.StepGitHub)
	if !ok {
		return nil
	}
	cg, ok1 := unwrap(execs[pipeline.StageCodeGeneration]).(codegen.Executor)
	rv, ok2 := unwrap(execs[pipeline.StageReview]).(review.Executor)
	if !ok1 || !ok2 {
		return restack.Step{GitHub: rg}
	}
	a := revision.Attempt{Code: cg, Review: rv}
	a.Issues, _ = gh.(stagekit.IssueReader)
	// The design stages' revisions, as ReviserOf wires them.
	if ar, ok := unwrap(execs[pipeline.StageArchitecture]).(architecture.Executor); ok {
		a.Spec = ar
	}
	if i, ok := unwrap(execs[pipeline.StageInterfaceDesign]).(interfaces.Executor); ok {
		a.Design = i
	}
	return restackStep(rg, a)
}

// restackStep resolves conflicts with attempt, given each step's input:
// a sub-work-item's PR goes to code generation's attempt fed the
// conflict, then the review passes; the specification and interface PRs
// to their design stage's revision, as a review revision does.
func restackStep(gh restack.StepGitHub, attempt revision.Attempt) engine.Restacker {
	return restack.Step{GitHub: gh, Generator: func(in engine.StageInput) revision.Generator {
		a := attempt
		a.In = in
		return a
	}}
}
