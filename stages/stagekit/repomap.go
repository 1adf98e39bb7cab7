package stagekit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/langmap"
	"github.com/cogworks/cogworks/internal/llm"
)

// repoMapper is the domain service's optional repo_map method (Extension
// API 1.1.0); *domain.Client has it.
type repoMapper interface {
	RepoMap(ctx context.Context, req domain.Request) (domain.RepoMapResult, error)
}

// LoadRepoMap asks the primary domain service for the repository map of
// the workspace with overlay on top. It returns nil, nil when there is no
// service or it does not offer repo_map: callers then localise by
// directory.
func LoadRepoMap(ctx context.Context, d Deps, stage string, overlay map[string]string) (*domain.RepoMapResult, error) {
	m, ok := d.Domain.(repoMapper)
	if !ok || d.Workspace == "" {
		return nil, nil
	}
	req := domain.Request{Stage: stage, Repository: domain.Repository{Path: d.Workspace}}
	for _, p := range slices.Sorted(maps.Keys(overlay)) {
		req.Artifacts = append(req.Artifacts, domain.Artifact{Path: p, Content: overlay[p]})
	}
	res, err := m.RepoMap(ctx, req)
	var de *domain.Error
	if errors.As(err, &de) && de.Code == domain.CodeUnsupportedMethod {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("repository map from the domain service: %w", err)
	}
	return &res, nil
}

// Log is d.Logger, or a logger that discards.
func (d Deps) Log() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// PackageDistances returns, for every package directory of the map, its
// distance in the import graph (edges both ways: what a package imports
// and what imports it) from the packages in dirs. Unreachable packages are
// absent. The root package is a package like any other.
func PackageDistances(m *domain.RepoMapResult, dirs []string) map[string]int {
	byImport := map[string]string{}
	for _, p := range m.Packages {
		byImport[p.ImportPath] = p.Dir
	}
	adj := map[string][]string{}
	for _, p := range m.Packages {
		for _, im := range p.Imports {
			if d, ok := byImport[im]; ok && d != p.Dir {
				adj[p.Dir] = append(adj[p.Dir], d)
				adj[d] = append(adj[d], p.Dir)
			}
		}
	}
	dist := map[string]int{}
	var queue []string
	for _, d := range dirs {
		if _, seen := dist[d]; !seen {
			dist[d] = 0
			queue = append(queue, d)
		}
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, n := range adj[d] {
			if _, seen := dist[n]; !seen {
				dist[n] = dist[d] + 1
				queue = append(queue, n)
			}
		}
	}
	return dist
}

// PackageSkeleton renders a package's exported API as signatures only, for
// context farther away than the code being changed.
func PackageSkeleton(p domain.MapPackage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s // %s (signatures only)\n", p.Name, p.ImportPath)
	for _, f := range p.Files {
		if f.Test {
			continue
		}
		for _, s := range f.Symbols {
			if langmap.Exported(f.Path, s) {
				fmt.Fprintf(&b, "%s\n", s.Signature)
			}
		}
	}
	return b.String()
}

// FileSkeleton renders one file's declarations as signatures only.
func FileSkeleton(f domain.MapFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s: %d lines; signatures only\n", f.Path, f.Lines)
	for _, s := range f.Symbols {
		fmt.Fprintf(&b, "%s // line %d\n", s.Signature, s.Line)
	}
	return b.String()
}

// lockFiles are dependency lock files: generated, long and useless as
// context.
var lockFiles = []string{"go.sum", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "cargo.lock",
	"poetry.lock", "gemfile.lock", "composer.lock", "go.work.sum", "uv.lock"}

// ExcludedContext reports whether a repository file is never context: lock
// files, test fixtures (testdata/, fixtures/), vendored and generated
// trees, and CogWorks's own directory (scenarios are the holdout set).
func ExcludedContext(p string) bool {
	lower := strings.ToLower(p)
	if slices.Contains(lockFiles, path.Base(lower)) {
		return true
	}
	for _, seg := range strings.Split(path.Dir(lower), "/") {
		switch seg {
		case "testdata", "fixtures", "vendor", "node_modules", ".git", ".cogworks":
			return true
		}
	}
	return strings.HasPrefix(lower, ".cogworks/") || strings.HasPrefix(lower, ".git/")
}

// maxMapTokens bounds the repository map given to planning; past it the
// map drops detail level by level (see symbolMap).
const maxMapTokens = 12000

// Detail levels of the symbol map, most detailed first.
const (
	mapFiles = iota
	mapNames
	mapExported
	mapAll
)

// RenderRepoMap renders the file tree and, when m is set, the symbol map
// for the planning prompt: every package with its files and their
// declarations, as detailed as fits in maxMapTokens.
func RenderRepoMap(files []string, m *domain.RepoMapResult) string {
	var tree strings.Builder
	tree.WriteString("Files:\n")
	for _, f := range files {
		tree.WriteString(f + "\n")
	}
	if m == nil {
		return tree.String()
	}
	for _, level := range []int{mapAll, mapExported, mapNames, mapFiles} {
		out := tree.String() + "\n" + mapHeading(m) + " and declarations (line: signature):\n" + symbolMap(m, level)
		if llm.EstimateTokens(out) <= maxMapTokens || level == mapFiles {
			return out
		}
	}
	return tree.String()
}

// mapHeading names what the map lists: "Go packages" for a map of Go
// files alone (the heading it always had), "Packages" once another
// language is in it.
func mapHeading(m *domain.RepoMapResult) string {
	for _, p := range m.Packages {
		for _, f := range p.Files {
			if path.Ext(f.Path) != ".go" {
				return "Packages"
			}
		}
	}
	return "Go packages"
}

// symbolMap renders m at a detail level: mapAll lists every declaration's
// signature, mapExported exported ones, mapNames every declaration's name
// on one line per file (a large root-package library such as pflag has
// 15k tokens of exported signatures alone), mapFiles only packages and
// files. Test files are listed without their declarations.
func symbolMap(m *domain.RepoMapResult, level int) string {
	var b strings.Builder
	for _, p := range m.Packages {
		fmt.Fprintf(&b, "package %s (dir %s, import %s)\n", p.Name, p.Dir, p.ImportPath)
		for _, f := range p.Files {
			fmt.Fprintf(&b, "  %s (%d lines)", f.Path, f.Lines)
			switch {
			case level == mapFiles || f.Test || len(f.Symbols) == 0:
			case level == mapNames:
				names := make([]string, len(f.Symbols))
				for i, s := range f.Symbols {
					names[i] = s.Name
				}
				b.WriteString(": " + strings.Join(names, ", "))
			default:
				for _, s := range f.Symbols {
					if level == mapExported && !langmap.Exported(f.Path, s) {
						continue
					}
					fmt.Fprintf(&b, "\n    %d: %s", s.Line, s.Signature)
				}
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}
