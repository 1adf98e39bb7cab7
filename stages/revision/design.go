package revision

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// Designer runs a design stage's own LLM call again on review feedback of
// its PR, its answer validated as the stage validates it
// (architecture.Executor.Revise, interfaces.Executor.Revise).
type Designer interface {
	Revise(ctx context.Context, in engine.StageInput, req stagekit.DesignRequest) (stagekit.DesignRevision, error)
}

// design names a work item's design PR: the stage that wrote it, which
// is also the stage the item waits in while its gate is open.
type design struct {
	stage pipeline.Stage
	// what names the document in replies.
	what string
}

// designOf reports whether pr (or branch) is the work item's
// specification or interface PR.
func designOf(snap *pipeline.Snapshot, pr int, branch string) (design, bool) {
	if snap == nil {
		return design{}, false
	}
	n := snap.WorkItem
	switch {
	case (snap.Artifacts.SpecPR != 0 && pr == snap.Artifacts.SpecPR) || branch == stagekit.SpecBranch(n):
		return design{stage: pipeline.StageArchitecture, what: "specification"}, true
	case (snap.Artifacts.InterfacePR != 0 && pr == snap.Artifacts.InterfacePR) || branch == stagekit.DesignBranch(n):
		return design{stage: pipeline.StageInterfaceDesign, what: "interface design"}, true
	}
	return design{}, false
}

// reviseDesign revises the specification or interface PR while its gate
// waits: the design stage's call with the feedback, one change of its
// files. Once the item has left that stage the document is approved (or
// the pipeline moved on) and the answer says so, changing nothing: later
// edits go through the amended-specification path.
func (a Attempt) reviseDesign(ctx context.Context, req Request, d design) (Change, error) {
	if st := a.In.Snapshot.Stage; st != d.stage {
		return Change{Reason: fmt.Sprintf("the work item is at stage %s, past the %s gate, so its %s is approved and this pull request is not changed; "+
			"edit the merged file on the default branch instead, and CogWorks pauses with the diff and re-plans once a writer approves it", st, d.stage, d.what)}, nil
	}
	designer := a.Spec
	if d.stage == pipeline.StageInterfaceDesign {
		designer = a.Design
	}
	if designer == nil {
		return Change{Reason: fmt.Sprintf("revising the %s is not wired in this deployment", d.what)}, nil
	}
	rv, err := designer.Revise(ctx, a.In, stagekit.DesignRequest{PR: req.PR, Branch: req.Branch, Feedback: req.Feedback})
	if reason, ok := escalated(err); ok {
		return Change{Reason: fmt.Sprintf("the %s stage's attempts did not pass its checks: %s", d.stage, reason)}, nil
	}
	if err != nil {
		return Change{}, fmt.Errorf("revise the %s of #%d: %w", d.what, a.In.Snapshot.WorkItem, err)
	}
	if len(rv.Files) == 0 && len(rv.Delete) == 0 {
		return Change{Reason: rv.Reason}, nil
	}
	c := change(req, written{files: rv.Files, deleted: rv.Delete, summary: rv.Summary})
	c.PullBody = rv.PullBody
	return c, nil
}

// interfaceChanges are the snapshot changes a revised interface PR
// decides: the interface list its body now carries (set before the
// commit, so it is there on a re-run that answers from the commit).
func interfaceChanges(ctx context.Context, gh GitHub, in engine.StageInput, pr int) ([]pipeline.Change, error) {
	snap := in.Snapshot
	if snap == nil || snap.Artifacts.InterfacePR == 0 || pr != snap.Artifacts.InterfacePR {
		return nil, nil
	}
	p, err := gh.GetPull(ctx, in.Repo, pr)
	if err != nil {
		return nil, fmt.Errorf("read the interface PR #%d: %w", pr, err)
	}
	decls, ok := stagekit.ParseInterfaceList(p.Body)
	if !ok {
		return nil, nil
	}
	return []pipeline.Change{pipeline.SetInterfaces{Branch: snap.Artifacts.InterfaceBranch, PR: pr, Decls: decls}}, nil
}
