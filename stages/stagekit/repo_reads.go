package stagekit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// SpecBranch is the branch of issue n's specification (docs/spec.md §6).
func SpecBranch(n int) string { return pipeline.Branch{Item: n, What: "spec"}.String() }

// DesignBranch is the branch of issue n's interface design.
func DesignBranch(n int) string { return pipeline.Branch{Item: n, What: "interfaces"}.String() }

// SpecPath is the path of issue n's specification in the repository.
func SpecPath(n int) string { return fmt.Sprintf("docs/cogworks/%d-specification.md", n) }

// Repository is the Code Repository port: d.Repo, else the workspace.
func (d Deps) Repository() contextpack.Repository {
	if d.Repo != nil {
		return d.Repo
	}
	return contextpack.LocalRepo{Dir: d.Workspace}
}

// DefaultBranch asks GitHub for the repository's default branch.
func DefaultBranch(ctx context.Context, gh RepoInfoReader, repo github.Repo) (string, error) {
	info, err := gh.GetRepo(ctx, repo)
	if err != nil {
		return "", fmt.Errorf("read default branch of %s: %w", repo, err)
	}
	if info.DefaultBranch == "" {
		return "", fmt.Errorf("read default branch of %s: GitHub reported none", repo)
	}
	return info.DefaultBranch, nil
}

// SpecOf returns the specification the item's stages work from: for an
// item whose path skips architecture (a small bug fix) that is the issue
// itself, as no specification PR exists; else ReadSpec.
func SpecOf(ctx context.Context, gh SpecReader, in engine.StageInput) (string, error) {
	if in.Snapshot.Skips(pipeline.StageArchitecture) {
		return strings.TrimSpace("# " + in.Issue.Title + "\n\n" + in.Issue.Body), nil
	}
	return ReadSpec(ctx, gh, in.Repo, in.Snapshot)
}

// ReadSpec returns the Markdown specification of work item n: from the
// spec branch, else (merged and deleted) from the default branch.
func ReadSpec(ctx context.Context, gh SpecReader, repo github.Repo, snap *pipeline.Snapshot) (string, error) {
	n := snap.WorkItem
	branch := snap.Artifacts.SpecBranch
	if branch == "" {
		branch = SpecBranch(n)
	}
	b, err := gh.GetFile(ctx, repo, SpecPath(n), branch)
	if errors.Is(err, github.ErrNotFound) {
		var def string
		if def, err = DefaultBranch(ctx, gh, repo); err != nil {
			return "", err
		}
		b, err = gh.GetFile(ctx, repo, SpecPath(n), def)
	}
	if err != nil {
		return "", fmt.Errorf("read the specification %s of #%d: %w", SpecPath(n), n, err)
	}
	return string(b), nil
}

// ReadRepoFiles reads the repository files accepted by keep, in listing
// order; unreadable files are skipped only when they vanished.
func ReadRepoFiles(ctx context.Context, repo contextpack.Repository, keep func(path string) bool) ([]contextpack.Item, error) {
	paths, err := repo.ListFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repository files: %w", err)
	}
	var out []contextpack.Item
	for _, p := range paths {
		if !keep(p) {
			continue
		}
		b, err := repo.ReadFile(ctx, p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, github.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		out = append(out, contextpack.Item{Path: p, Content: string(b)})
	}
	return out, nil
}

// LoadInterfaces returns the interface list: from the snapshot, else from
// the interface PR's body.
func LoadInterfaces(ctx context.Context, gh PullLister, repo github.Repo, botLogin string, snap *pipeline.Snapshot) ([]pipeline.InterfaceDecl, error) {
	if len(snap.Interfaces) > 0 {
		return slices.Clone(snap.Interfaces), nil
	}
	if snap.Skips(pipeline.StageInterfaceDesign) || interfacesWithoutPR(snap) {
		// The item's path has no interface PR (skipped), or the design
		// changed nothing and opened none: nothing to read.
		return nil, nil
	}
	branch := snap.Artifacts.InterfaceBranch
	if branch == "" {
		branch = DesignBranch(snap.WorkItem)
	}
	pr, found, err := findPullByHead(ctx, gh, repo, botLogin, branch)
	if err != nil {
		return nil, err
	}
	if !found || !RecordedOrNone(snap.Artifacts.InterfacePR, pr.Number) {
		return nil, fmt.Errorf("read the interface list of #%d: no interface PR for %s", snap.WorkItem, branch)
	}
	decls, ok := ParseInterfaceList(pr.Body)
	if !ok {
		return nil, fmt.Errorf("read the interface list of #%d: PR #%d's body lacks it", snap.WorkItem, pr.Number)
	}
	return decls, nil
}

// interfacesWithoutPR reports a design recorded by unchanged: its branch
// is the default branch and no PR was opened, so its interface list (if
// any) lives only in the snapshot.
func interfacesWithoutPR(snap *pipeline.Snapshot) bool {
	return snap.Artifacts.InterfaceBranch != "" && snap.Artifacts.InterfacePR == 0
}

// ParseInterfaceList recovers the interface list from an interface PR body.
func ParseInterfaceList(body string) ([]pipeline.InterfaceDecl, bool) {
	_, rest, ok := strings.Cut(body, InterfaceListMarker)
	if !ok {
		return nil, false
	}
	raw, _, ok := strings.Cut(rest, " -->")
	if !ok {
		return nil, false
	}
	var decls []pipeline.InterfaceDecl
	if err := json.Unmarshal([]byte(raw), &decls); err != nil || len(decls) == 0 {
		return nil, false
	}
	return decls, true
}

// InterfaceListMarker prefixes the interface list hidden in the interface
// PR's body, from which a re-run recovers it when the snapshot was lost.
const InterfaceListMarker = "<!-- cogworks:interfaces="
