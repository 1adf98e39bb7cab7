// Package stages holds one engine.StageExecutor per pipeline stage. An
// executor orchestrates: it assembles context, calls the LLM gateway,
// validates through pure packages (classify, planner, review, xval) and the
// domain service, and writes its artifacts through idem so that re-running
// it on the same GitHub state changes nothing. It never holds domain rules
// itself, and never moves labels: the engine does that from the snapshot.
package stages
