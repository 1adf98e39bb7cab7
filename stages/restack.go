package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/restack"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/revision"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Restacker returns the restack of the work items' stacks
// (engine.Deps.Restacker): update-branch and retargeting, and a conflict
// resolved by code generation's attempt and the review passes, as any
// revision, with the same ports as their stages.
// Nil when d.GitHub cannot restack.
func Restacker(d Deps) engine.Restacker {
	rg, ok := d.GitHub.(restack.StepGitHub)
	if !ok {
		return nil
	}
	return restackStep(rg, codegen.New(codegen.Deps{Deps: d.Deps, Baselines: d.Baselines}, d.GitHub), review.New(d.Deps, d.GitHub), d.GitHub)
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
	issues, _ := gh.(stagekit.IssueReader)
	return restackStep(rg, cg, rv, issues)
}

// restackStep resolves conflicts with a revision.Attempt: code
// generation's attempt on the PR's sub-work-item, fed the conflict, then
// the review passes.
func restackStep(gh restack.StepGitHub, cg revision.Coder, rv revision.Reviewer, issues stagekit.IssueReader) engine.Restacker {
	return restack.Step{GitHub: gh, Generator: func(in engine.StageInput) revision.Generator {
		return revision.Attempt{Code: cg, Review: rv, Issues: issues, In: in}
	}}
}
