package stagekit

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// LoadCurrentSWI returns what review and integration start from: the
// current SWI's record (a copy), its issue and its files as committed on its branch.
func LoadCurrentSWI(ctx context.Context, gh interface {
	IssueReader
	FileReader
}, repo github.Repo, snap *pipeline.Snapshot) (pipeline.SWI, github.Issue, []domain.Artifact, error) {
	rec, err := CurrentSWI(snap)
	if err != nil {
		return pipeline.SWI{}, github.Issue{}, nil, err
	}
	issue, err := gh.GetIssue(ctx, repo, rec.Issue)
	if err != nil {
		return pipeline.SWI{}, github.Issue{}, nil, fmt.Errorf("read sub-work-item %s issue #%d: %w", rec.ID, rec.Issue, err)
	}
	files, err := readSWIFiles(ctx, gh, repo, snap, rec)
	if err != nil {
		return pipeline.SWI{}, github.Issue{}, nil, err
	}
	return rec, issue, files, nil
}

// readSWIFiles reads the SWI's generated files (the list code generation
// recorded) from its branch, in path order.
func readSWIFiles(ctx context.Context, gh FileReader, repo github.Repo, snap *pipeline.Snapshot, rec pipeline.SWI) ([]domain.Artifact, error) {
	paths := rec.Committed
	if len(paths) == 0 {
		return nil, fmt.Errorf("sub-work-item %s: no generated files recorded in the state snapshot (sub_work_items[id=%s].committed)", rec.ID, rec.ID)
	}
	branch := BranchOf(snap, rec)
	contents, err := readFiles(ctx, gh, repo, branch, paths)
	if err != nil {
		return nil, fmt.Errorf("read files of sub-work-item %s: %w", rec.ID, err)
	}
	files := make([]domain.Artifact, 0, len(paths))
	for _, p := range paths {
		files = append(files, domain.Artifact{Path: p, Content: contents[p]})
	}
	return files, nil
}
