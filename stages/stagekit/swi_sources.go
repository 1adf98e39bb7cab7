package stagekit

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// SWISources is the code a SWI builds on: the interface-design stage's
// files and the outputs of the SWIs it depends on, read from their
// branches on GitHub.
type SWISources struct {
	// Interfaces holds every file the interface-design stage wrote (new or
	// changed on the interface branch compared with the default branch).
	Interfaces map[string]string
	// Own lists the paths of this SWI's interface definitions (priority 1).
	Own []string
	// Deps holds the outputs of the dependency closure, later SWIs in
	// topological order overriding earlier ones.
	Deps map[string]string
	// Direct lists the paths produced by the direct dependencies.
	Direct []string
}

// interfaceFiles maps interface ids and names to the files that define
// them, from the interface-design stage's interface list.
func interfaceFiles(ctx context.Context, gh PullLister, repo github.Repo, botLogin string, snap *pipeline.Snapshot) (map[string]string, error) {
	decls, err := LoadInterfaces(ctx, gh, repo, botLogin, snap)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, dcl := range decls {
		if dcl.File != "" {
			out[dcl.ID] = dcl.File
			if dcl.Name != "" {
				out[dcl.Name] = dcl.File
			}
		}
	}
	return out, nil
}

// SWIOf names the sub-work-item whose sources LoadSWISources reads: its
// snapshot record and its plan item, in the work item's snapshot, whose
// interface files count when the bot (BotLogin) wrote them.
type SWIOf struct {
	BotLogin string
	Snapshot *pipeline.Snapshot
	Rec      pipeline.SWI
	Item     planner.SubWorkItem
}

// LoadSWISources reads what the SWI builds on. The SWI's own interface
// files are those defining its plan item's interfaces; when none of them
// names a file of the interface branch, every interface file is its own.
func LoadSWISources(ctx context.Context, gh CodeReader, repo github.Repo, of SWIOf) (SWISources, error) {
	botLogin, snap, rec, item := of.BotLogin, of.Snapshot, of.Rec, of.Item
	src := SWISources{Deps: map[string]string{}}
	info, err := gh.GetRepo(ctx, repo)
	if err != nil {
		return src, fmt.Errorf("read repository %s: %w", repo, err)
	}
	ib := interfaceBranch(snap)
	paths, err := changedPaths(ctx, gh, repo, ib, info.DefaultBranch)
	if err != nil {
		return src, fmt.Errorf("interface files of %s: %w", ib, err)
	}
	if src.Interfaces, err = readFiles(ctx, gh, repo, ib, paths); err != nil {
		return src, err
	}
	byID, err := interfaceFiles(ctx, gh, repo, botLogin, snap)
	if err != nil {
		return src, err
	}
	for _, id := range item.Interfaces {
		if f, ok := byID[id]; ok {
			if _, exists := src.Interfaces[f]; exists {
				src.Own = append(src.Own, f)
			}
		}
	}
	if len(src.Own) == 0 {
		src.Own = slices.Sorted(maps.Keys(src.Interfaces))
	}
	slices.Sort(src.Own)
	src.Own = slices.Compact(src.Own)

	closure, err := dependencyClosure(snap, rec)
	if err != nil {
		return src, err
	}
	direct := map[string]bool{}
	for _, id := range rec.DependsOn {
		direct[id] = true
	}
	for _, dep := range closure {
		files, err := DepFiles(ctx, gh, repo, snap, dep)
		if err != nil {
			return src, err
		}
		for p, c := range files {
			src.Deps[p] = c
			if direct[dep.ID] {
				src.Direct = append(src.Direct, p)
			}
		}
	}
	slices.Sort(src.Direct)
	src.Direct = slices.Compact(src.Direct)
	return src, nil
}

// DepFiles reads the files a completed SWI produced from its branch: the
// paths recorded by code generation, or failing that the branch's changes
// against the branch it started from.
func DepFiles(ctx context.Context, gh RepoReader, repo github.Repo, snap *pipeline.Snapshot, dep pipeline.SWI) (map[string]string, error) {
	branch := BranchOf(snap, dep)
	paths := dep.Committed
	if paths == nil {
		var err error
		if paths, err = changedPaths(ctx, gh, repo, branch, SWIBase(snap, dep)); err != nil {
			return nil, fmt.Errorf("outputs of sub-work-item %s: %w", dep.ID, err)
		}
	}
	files, err := readFiles(ctx, gh, repo, branch, paths)
	if err != nil {
		return nil, fmt.Errorf("outputs of sub-work-item %s: %w", dep.ID, err)
	}
	return files, nil
}

// Artifacts returns the interface files, the dependency outputs and extra
// (the SWI's own files) as domain artifacts, later sets overriding earlier
// ones, sorted by path.
func (s SWISources) Artifacts(extra map[string]string) []domain.Artifact {
	all := map[string]string{}
	maps.Copy(all, s.Interfaces)
	maps.Copy(all, s.Deps)
	maps.Copy(all, extra)
	out := make([]domain.Artifact, 0, len(all))
	for _, p := range slices.Sorted(maps.Keys(all)) {
		out = append(out, domain.Artifact{Path: p, Content: all[p]})
	}
	return out
}
