package cli

// Wire installs the production stage executors into f. Executors are
// added as the stages land; until then a stage without an executor fails
// the work item with a clear report.
func Wire(f *Factory) {}
