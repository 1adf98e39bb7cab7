// Package stages wires the stage executors: Executors is the one table of
// which package runs which operational stage (stages/intake,
// stages/architecture, stages/interfaces, stages/planning, stages/codegen,
// stages/scenario, stages/review, stages/integration), and Deps is what
// the wiring assembles for them. Executors hands each stage the shared
// stagekit.Deps, its own GitHub port (GitHub is only their union) and its
// own settings; the held-out scenarios go to scenario validation alone.
//
// An executor orchestrates: it assembles context, calls the LLM gateway,
// validates through pure packages (classify, planner, review, xval) and the
// domain service, and writes its artifacts through idem so that re-running
// it on the same GitHub state changes nothing. It never holds domain rules
// itself, and never moves labels: the engine does that from the snapshot.
//
// Stability: this package and the packages under it are part of
// CogWorks's Go API (the top-level packages pipeline, stages, classify,
// planner, review, xval and idem, beside domain). Until v1.0.0 of the
// module their exported names may change in any minor release; breaking
// changes are listed in the release notes.
package stages
