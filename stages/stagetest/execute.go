package stagetest

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/internal/engine"
)

// Execute runs ex on in as the engine's step does around an executor: the
// machine enters the per-SWI loop first (pipeline.Snapshot.EnterSWI, the
// only writer of CurrentSWI with LeaveSWI), and the changes the executor
// decided are applied to in.Snapshot after it returned, error or not
// (pipeline.Snapshot.Apply). Tests of one stage see the snapshot the
// engine would persist.
func Execute(ctx context.Context, ex engine.StageExecutor, in engine.StageInput) (engine.StageResult, error) {
	in.Snapshot.EnterSWI(in.Stage)
	res, err := ex.Execute(ctx, in)
	if aerr := in.Snapshot.Apply(res.Changes...); aerr != nil {
		return res, fmt.Errorf("%s: %w", in.Stage, aerr)
	}
	return res, err
}
