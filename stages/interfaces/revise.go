package interfaces

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// maxCurrentFiles bounds the interface PR's files a revision reads back:
// a design is a handful of files, and each is one request.
const maxCurrentFiles = 40

// Revise answers review feedback on the interface PR (issue 28,
// stages/revision): the stage's own `interface_design` call runs again
// with the PR's files as they read on req.Branch and the reviewers'
// feedback (already quoted as untrusted data), and its answer goes
// through the stage's own check — paths (protected paths are never
// written), declarations, the domain service's validate and the
// registry's contracts — with problems fed back within the stage's
// attempts. The result is the files that differ, the earlier design's
// files the new one dropped, and the PR body with the new interface list;
// committing is the caller's.
func (x Executor) Revise(ctx context.Context, in engine.StageInput, req stagekit.DesignRequest) (stagekit.DesignRevision, error) {
	d, n := x.Deps, in.Issue.Number
	if d.Domain == nil {
		return stagekit.DesignRevision{}, fmt.Errorf("interface design: %w", &domain.NoServiceError{})
	}
	cur, err := x.current(ctx, in, req)
	if err != nil {
		return stagekit.DesignRevision{}, err
	}
	extra := map[string]any{"Review": req.Feedback}
	if len(cur) > 0 {
		items := make([]contextpack.Item, 0, len(cur))
		for _, p := range slices.Sorted(maps.Keys(cur)) {
			items = append(items, contextpack.Item{Path: p, Content: cur[p]})
		}
		extra["Current"] = items
	}
	design, err := x.design(ctx, in, extra)
	if err != nil {
		return stagekit.DesignRevision{}, err
	}
	if len(design.Files) == 0 && len(design.Interfaces) == 0 {
		return stagekit.DesignRevision{Reason: "the revised design has no files and no interfaces; an interface PR is not withdrawn by a revision"}, nil
	}
	out := stagekit.DesignRevision{Files: map[string]string{}}
	kept := map[string]bool{}
	for _, f := range design.Files {
		kept[f.Path] = true
		if old, ok := cur[f.Path]; !ok || old != f.Content {
			out.Files[f.Path] = f.Content
		}
	}
	for _, decl := range in.Snapshot.Interfaces {
		if _, onBranch := cur[decl.File]; onBranch && !kept[decl.File] && !slices.Contains(out.Delete, decl.File) {
			out.Delete = append(out.Delete, decl.File)
		}
	}
	if len(out.Files) == 0 && len(out.Delete) == 0 {
		return stagekit.DesignRevision{Reason: "the revised design's files read exactly as the ones on the branch"}, nil
	}
	if out.PullBody, err = InterfacePullBody(n, in.Snapshot.Artifacts.SpecPR, design.Interfaces, d.Warnings); err != nil {
		return stagekit.DesignRevision{}, err
	}
	ids := make([]string, len(design.Interfaces))
	for i, decl := range design.Interfaces {
		ids[i] = decl.ID
	}
	slices.Sort(ids)
	out.Summary = fmt.Sprintf("interfaces now %s", strings.Join(ids, ", "))
	return out, nil
}

// current reads the interface PR's files (as its branch has them) that
// generated code may write; a removed file or a protected path is left out.
func (x Executor) current(ctx context.Context, in engine.StageInput, req stagekit.DesignRequest) (map[string]string, error) {
	files, err := x.GitHub.ListPullFiles(ctx, in.Repo, req.PR)
	if err != nil {
		return nil, fmt.Errorf("list the files of the interface PR #%d: %w", req.PR, err)
	}
	cur := map[string]string{}
	for _, f := range files {
		if f.Status == "removed" || stagekit.GeneratedPathProblem(f.Path) != "" || len(cur) >= maxCurrentFiles {
			continue
		}
		b, err := x.GitHub.GetFile(ctx, in.Repo, f.Path, req.Branch)
		if errors.Is(err, github.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s on %s: %w", f.Path, req.Branch, err)
		}
		cur[f.Path] = string(b)
	}
	return cur, nil
}
