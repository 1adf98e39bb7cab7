package codegen

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Revision is the passing change of a revision attempt: what to write on
// the sub-work-item's branch, not yet committed.
type Revision struct {
	Files   map[string]string
	Deleted []string
	// Attempt is the attempt that passed; Notes the model's own account
	// of it (untrusted).
	Attempt int
	Notes   string
	// Changes record the change's paths in the sub-work-item's committed
	// files, so later stages read them; the engine applies them with the
	// revision's record.
	Changes []pipeline.Change
}

// Revise runs code generation's attempt loop for the sub-work-item swiID
// of in.Snapshot with feedback (review comments or CI failures, already
// quoted as untrusted data) as the feedback of its first attempt, on the
// tree of its branch as it stands: the same context, the same domain
// service checks (normalise, validate, review rules, simulate against the
// baseline) and the same retry budget as any attempt. It commits nothing:
// the revision cycle (stages/revision) commits the change on the PR's
// branch with its own crash-safe trailer. Its Changes record the change's
// paths in the sub-work-item's committed files, so later stages read them.
func (e Executor) Revise(ctx context.Context, in engine.StageInput, swiID, feedback string) (Revision, error) {
	if e.Deps.Domain == nil {
		return Revision{}, fmt.Errorf("revision: validating generated code: %w", &domain.NoServiceError{})
	}
	rec := in.Snapshot.SubWorkItem(swiID)
	if rec == nil {
		return Revision{}, fmt.Errorf("revision: sub-work-item %q is not in the snapshot", swiID)
	}
	r := SWIRun{in: in, repo: in.Repo, n: stagekit.WorkItem(in), baselines: e.Deps.Baselines}
	if r.baselines == nil {
		r.baselines = &BaselineCache{}
	}
	attempt := *rec
	// The earlier output is the branch's: a revision edits what the PR holds.
	attempt.Feedback = feedback
	r, cx, err := e.prepare(ctx, r, attempt)
	if err != nil {
		return Revision{}, err
	}
	cs, at, notes, err := e.generate(ctx, in, r, cx, maxAttempts(in.Config))
	if err != nil {
		return Revision{}, err
	}
	del, err := e.presentOnBranch(ctx, r, stagekit.BranchOf(in.Snapshot, *rec), cs.Deleted)
	if err != nil {
		return Revision{}, err
	}
	return Revision{Files: cs.Files, Deleted: del, Attempt: at, Notes: notes,
		Changes: []pipeline.Change{pipeline.SetSWICommitted{ID: rec.ID, Committed: committedAfter(rec.Committed, cs, cs.Files)}}}, nil
}
