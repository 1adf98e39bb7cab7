// Package stages holds one engine.StageExecutor per pipeline stage. An
// executor orchestrates: it assembles context, calls the LLM gateway,
// validates through pure packages (classify, planner, review, xval) and the
// domain service, and writes its artifacts through idem so that re-running
// it on the same GitHub state changes nothing. It never holds domain rules
// itself, and never moves labels: the engine does that from the snapshot.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package stages
