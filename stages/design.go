package stages

import (
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/planning"
)

// Design returns the watch on the design a plan was made from
// (engine.Deps.Design): planning's re-planner, with planning's ports.
func Design(d Deps) engine.DesignWatcher { return planning.NewReplanner(d.Deps, d.GitHub) }

// DesignOf returns the re-planner built from the planning executor of
// execs (as Executors made it, unwrapped like ReviserOf's), nil when execs
// holds another (a test's fake): the design is then not watched.
func DesignOf(gh GitHub, execs map[pipeline.Stage]engine.StageExecutor) engine.DesignWatcher {
	pl, ok := unwrap(execs[pipeline.StagePlanning]).(planning.Executor)
	if !ok || gh == nil {
		return nil
	}
	return planning.NewReplanner(pl.Deps, gh)
}
