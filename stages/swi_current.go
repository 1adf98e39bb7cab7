package stages

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// shipCurrentSWI returns the record of the SWI the per-SWI stages are
// working on.
func shipCurrentSWI(snap *pipeline.Snapshot) (*pipeline.SWIRecord, error) {
	if snap.CurrentSWI == "" {
		return nil, fmt.Errorf("work item #%d: no current sub-work-item in the state snapshot", snap.WorkItem)
	}
	for i := range snap.Artifacts.SubWorkItems {
		if snap.Artifacts.SubWorkItems[i].ID == snap.CurrentSWI {
			return &snap.Artifacts.SubWorkItems[i], nil
		}
	}
	return nil, fmt.Errorf("work item #%d: current sub-work-item %q is not among the planned ones", snap.WorkItem, snap.CurrentSWI)
}

// readSWIFiles reads the SWI's generated files (the list code generation
// recorded) from its branch, in path order.
// loadCurrentSWI returns what review and integration start from: the
// current SWI's record, its issue and its files as committed on its branch.
func loadCurrentSWI(ctx context.Context, gh interface {
	issueReader
	fileReader
}, repo github.Repo, snap *pipeline.Snapshot) (*pipeline.SWIRecord, github.Issue, []domain.Artifact, error) {
	rec, err := shipCurrentSWI(snap)
	if err != nil {
		return nil, github.Issue{}, nil, err
	}
	issue, err := gh.GetIssue(ctx, repo, rec.Issue)
	if err != nil {
		return nil, github.Issue{}, nil, fmt.Errorf("read sub-work-item %s issue #%d: %w", rec.ID, rec.Issue, err)
	}
	files, err := readSWIFiles(ctx, gh, repo, snap, *rec)
	if err != nil {
		return nil, github.Issue{}, nil, err
	}
	return rec, issue, files, nil
}

func readSWIFiles(ctx context.Context, gh fileReader, repo github.Repo, snap *pipeline.Snapshot, rec pipeline.SWIRecord) ([]domain.Artifact, error) {
	paths := swiFiles(snap, rec.ID)
	if len(paths) == 0 {
		return nil, fmt.Errorf("sub-work-item %s: no generated files recorded in the state snapshot (swis.%s.files)", rec.ID, rec.ID)
	}
	branch := branchOf(snap, rec)
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
