package codegen

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// maxContextFileBytes skips repository files too large to be useful context.
const maxContextFileBytes = 256 << 10

// swiText describes the sub-work-item for the prompts.
func swiText(it planner.SubWorkItem) string {
	var b strings.Builder
	fmt.Fprintf(&b, "id: %s\n", it.ID)
	if it.Title != "" {
		fmt.Fprintf(&b, "title: %s\n", it.Title)
	}
	if len(it.Files) > 0 {
		fmt.Fprintf(&b, "files: %s\n", strings.Join(it.Files, ", "))
	}
	if len(it.Symbols) > 0 {
		fmt.Fprintf(&b, "symbols: %s\n", strings.Join(it.Symbols, ", "))
	}
	if len(it.Interfaces) > 0 {
		fmt.Fprintf(&b, "interfaces: %s\n", strings.Join(it.Interfaces, ", "))
	}
	if len(it.DependsOn) > 0 {
		fmt.Fprintf(&b, "depends on: %s\n", strings.Join(it.DependsOn, ", "))
	}
	if it.Tests != "" {
		fmt.Fprintf(&b, "tests: %s\n", it.Tests)
	}
	if it.Description != "" {
		fmt.Fprintf(&b, "\n%s\n", it.Description)
	}
	return b.String()
}

// codegenContext is what code generation shows the model besides the
// sub-work-item: the issue, the files to edit and the ranked neighbours.
type codegenContext struct {
	// issue is the work item's title and body (untrusted text).
	Issue string
	// targets hold the current content of every existing file the plan
	// names for the SWI: priority 1, never dropped.
	Targets []contextpack.Item
	// items are constraints, standards and neighbours, packed by priority
	// and import-graph distance.
	Items []contextpack.Item
}

// Context ranking: packages up to neighbourFullDistance away in the import
// graph are shown whole, up to skeletonDistance as signatures only; a
// neighbour file larger than maxNeighbourTokens is shown as signatures
// only too. Everything but the never-dropped items (files to edit,
// interfaces) fits in codegenPromptTarget minus those items, but never in
// less than codegenMinContext: a fix's prompt stays small on a large
// repository, and a large file to edit squeezes its neighbours rather than
// the prompt growing by both.
const (
	neighbourFullDistance = 1
	skeletonDistance      = 3
	maxNeighbourTokens    = 4000
	codegenPromptTarget   = 12000
	codegenMinContext     = 3000
)

// issueText is the work item's title and body.
func (e Executor) issueText(ctx context.Context, in engine.StageInput, n int) (string, error) {
	issue := in.Issue
	if issue.Title == "" && issue.Body == "" {
		var err error
		if issue, err = e.GitHub.GetIssue(ctx, in.Repo, n); err != nil {
			return "", fmt.Errorf("read work item %s#%d: %w", in.Repo, n, err)
		}
	}
	return strings.TrimSpace(issue.Title + "\n\n" + issue.Body), nil
}

// BaseTree is what the SWI's answer edits: the default branch under the
// interface files, the dependencies' outputs and the SWI's own earlier
// output (a remediation edits what it wrote before).
func (e Executor) baseTree(ctx context.Context, r SWIRun) (BaseTree, error) {
	t := BaseTree{Repo: e.repo(), Overlay: map[string]string{}, ScenarioDir: r.in.Config.Scenarios.Directory}
	maps.Copy(t.Overlay, r.src.Interfaces)
	maps.Copy(t.Overlay, r.src.Deps)
	if len(r.rec.Committed) > 0 {
		own, err := stagekit.DepFiles(ctx, e.GitHub, r.repo, r.in.Snapshot, r.rec)
		if err != nil {
			return t, fmt.Errorf("earlier output of %s: %w", r.rec.ID, err)
		}
		maps.Copy(t.Overlay, own)
	}
	return t, nil
}

func (e Executor) repo() contextpack.Repository {
	if e.Deps.Repo != nil {
		return e.Deps.Repo
	}
	if e.Deps.Workspace != "" {
		return contextpack.LocalRepo{Dir: e.Deps.Workspace}
	}
	return nil
}

// ContextItems gathers the context below the dependency outputs: the
// files to edit (current content, never dropped), constraints (3), coding
// standards (4) and the neighbours of the files to edit (5), ranked by
// import-graph distance from the repository map, signatures only when far
// or large. Lock files, fixtures, binaries, scenario files (holdout,
// ASSERT-SCEN-002) and anything else under .cogworks/ are never context.
func (e Executor) ContextItems(ctx context.Context, in engine.StageInput, r SWIRun) (codegenContext, error) {
	var cx codegenContext
	item, src := r.Item, r.src
	if c, ok := stagekit.ConstraintItem(in.Config.Constraints.ForbiddenImports); ok {
		cx.Items = append(cx.Items, c)
	}
	shown := map[string]bool{}
	for _, p := range src.Own {
		shown[p] = true
	}
	for p := range src.Deps {
		shown[p] = true
	}
	var targetDirs []string
	for _, f := range item.Files {
		p := path.Clean(f)
		if stagekit.GeneratedPathProblem(f) != "" || len(contextpack.ExcludeScenarios([]string{p}, in.Config.Scenarios.Directory)) == 0 {
			continue
		}
		targetDirs = append(targetDirs, path.Dir(p))
		if shown[p] {
			continue
		}
		c, ok, err := r.Base.read(ctx, p)
		if err != nil {
			return cx, fmt.Errorf("read %s, a file to edit: %w", p, err)
		}
		if ok {
			shown[p] = true
			cx.Targets = append(cx.Targets, contextpack.Item{Priority: contextpack.PriorityInterface, Kind: contextpack.KindFileToEdit, Path: p, Content: c})
		}
	}
	cx.Targets = FocusTargets(cx.Targets, item.Symbols)
	repo := e.repo()
	if repo == nil {
		return cx, nil
	}
	if c := in.Snapshot.Classification; len(targetDirs) == 0 && c != nil && len(c.AffectedModules) > 0 {
		modules, err := e.Deps.Modules(ctx)
		if err != nil {
			return cx, fmt.Errorf("context of the classification's modules: %w", err)
		}
		for _, m := range c.AffectedModules {
			if listed, ok := modules.Lookup(m); ok {
				targetDirs = append(targetDirs, modules.Dir(listed))
			} else {
				targetDirs = append(targetDirs, path.Clean(m))
			}
		}
	}
	all, err := repo.ListFiles(ctx)
	if err != nil {
		return cx, fmt.Errorf("list repository files for context: %w", err)
	}
	all = contextpack.ExcludeScenarios(all, in.Config.Scenarios.Directory)
	rmap, err := stagekit.LoadRepoMap(ctx, e.Deps.Deps, string(in.Stage), r.Base.Overlay)
	if err != nil {
		return cx, err
	}
	var neighbours []contextpack.Item
	focus := ChangeFocus{Dirs: targetDirs, Targets: item.Files, Shown: shown}
	if rmap != nil {
		neighbours, err = MapNeighbours(ctx, r.Base, rmap, focus)
	} else {
		neighbours, err = dirNeighbours(ctx, r.Base, all, focus)
	}
	if err != nil {
		return cx, err
	}
	cx.Items = append(cx.Items, neighbours...)
	for _, p := range all {
		if stagekit.ExcludedContext(p) || shown[p] {
			continue
		}
		prio, ok := docPriority(p)
		if !ok {
			continue
		}
		c, ok, err := readContextFile(ctx, r.Base, p)
		if err != nil {
			return cx, err
		}
		if ok {
			kind := map[int]contextpack.ItemKind{contextpack.PriorityConstraint: contextpack.KindConstraint, contextpack.PriorityStandard: contextpack.KindStandard}[prio]
			cx.Items = append(cx.Items, contextpack.Item{Priority: prio, Kind: kind, Path: p, Content: c})
		}
	}
	return cx, nil
}

// readContextFile reads p for context; ok is false for a missing, large or
// binary file.
func readContextFile(ctx context.Context, base BaseTree, p string) (string, bool, error) {
	c, ok, err := base.read(ctx, p)
	if err != nil {
		return "", false, fmt.Errorf("read %s for context: %w", p, err)
	}
	if !ok || len(c) > maxContextFileBytes || !utf8.ValidString(c) || strings.ContainsRune(c, 0) {
		return "", false, nil
	}
	return c, true, nil
}

// ChangeFocus is what the neighbour ranking starts from.
type ChangeFocus struct {
	// Dirs are the directories (packages) being changed.
	Dirs []string
	// Targets are the files to edit; the test files beside them are
	// context wherever they live.
	Targets []string
	// Shown are the files already in the context, left out; nil: none.
	Shown map[string]bool
}

// MapNeighbours ranks the repository's Go packages by import-graph
// distance from the packages being changed: the non-test files of
// packages within neighbourFullDistance whole (a large one as signatures),
// the test file beside each file to edit whole, farther packages up to
// skeletonDistance as their exported signatures.
func MapNeighbours(ctx context.Context, base BaseTree, m *domain.RepoMapResult, focus ChangeFocus) ([]contextpack.Item, error) {
	shown := focus.Shown
	dist := stagekit.PackageDistances(m, focus.Dirs)
	siblingTests := map[string]bool{}
	for _, t := range focus.Targets {
		for _, s := range stagekit.SiblingTests(t) { // x_test.go, test_x.py, x.test.ts, ...
			siblingTests[s] = true
		}
	}
	var out []contextpack.Item
	for _, p := range m.Packages {
		d, ok := dist[p.Dir]
		if !ok || d > skeletonDistance {
			continue
		}
		if d > neighbourFullDistance {
			out = append(out, contextpack.Item{Priority: contextpack.PriorityOther, Kind: contextpack.KindSkeleton,
				Path: p.Dir + " (package " + p.Name + ")", Content: stagekit.PackageSkeleton(p), Distance: d})
			continue
		}
		for _, f := range p.Files {
			if shown[f.Path] || stagekit.ExcludedContext(f.Path) || (f.Test && !siblingTests[f.Path]) {
				continue
			}
			c, ok, err := readContextFile(ctx, base, f.Path)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			it := contextpack.Item{Priority: contextpack.PriorityOther, Kind: contextpack.KindFile, Path: f.Path, Content: c, Distance: d}
			if llm.EstimateTokens(c) > maxNeighbourTokens {
				it.Kind, it.Content = "skeleton", stagekit.FileSkeleton(f)
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// dirNeighbours is the ranking without a repository map (a domain service
// older than Extension API 1.1.0, or one without repo_map): the files of
// the directories being changed, the root directory included, and the
// conventional test files of the files to edit wherever they live
// (tests/test_x.py beside src/pkg/x.py), at distance 0.
func dirNeighbours(ctx context.Context, base BaseTree, all []string, focus ChangeFocus) ([]contextpack.Item, error) {
	dirs, shown := focus.Dirs, focus.Shown
	siblings := map[string]bool{}
	for _, t := range focus.Targets {
		for _, s := range stagekit.SiblingTests(t) {
			siblings[s] = true
		}
	}
	var out []contextpack.Item
	for _, p := range all {
		if shown[p] || stagekit.ExcludedContext(p) || !slices.Contains(dirs, path.Dir(p)) && !siblings[p] || strings.HasSuffix(p, ".md") {
			continue
		}
		c, ok, err := readContextFile(ctx, base, p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, contextpack.Item{Priority: contextpack.PriorityOther, Kind: contextpack.KindFile, Path: p, Content: c})
		}
	}
	return out, nil
}

// docPriority decides whether a repository document is context and at
// which priority: architecture decisions and constraint documents (3),
// coding standards (4).
func docPriority(p string) (int, bool) {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	doc := strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".txt")
	switch {
	case doc && (strings.Contains(lower, "/adr/") || strings.HasPrefix(lower, "adr/") || strings.Contains(base, "constraint")):
		return contextpack.PriorityConstraint, true
	case doc && (strings.Contains(base, "style") || strings.Contains(base, "standard") || strings.Contains(base, "contributing")):
		return contextpack.PriorityStandard, true
	}
	return 0, false
}

// promptVars assembles the context package within the configured window
// (docs/spec.md §8) and renders it into the code_generation variables. The files
// to edit and the SWI's interfaces are never dropped; the rest fits in
// the context budget (codegenPromptTarget), farther neighbours dropped first;
// a limit other than contextpack.NoLimit lowers that budget (a repack after the provider refused
// the prompt as over its window, contextpack.WithRepack). It returns the
// tokens packed.
func (e Executor) promptVars(in engine.StageInput, r SWIRun, cx codegenContext, feedback string, limit int) (map[string]any, int, error) {
	var items []contextpack.Item
	for _, p := range r.src.Own {
		items = append(items, contextpack.Item{Priority: contextpack.PriorityInterface, Kind: contextpack.KindInterface, Path: p, Content: r.src.Interfaces[p]})
	}
	items = append(items, cx.Targets...)
	for _, p := range r.src.Direct {
		items = append(items, contextpack.Item{Priority: contextpack.PriorityDependency, Kind: contextpack.KindDependencyOutput, Path: p, Content: r.src.Deps[p]})
	}
	items = append(items, cx.Items...)
	items = contextpack.ExcludeScenarioItems(items, in.Config.Scenarios.Directory)

	swi := swiText(r.Item)
	window := in.Config.LLM.ContextWindow
	if window <= 0 {
		window = codegenDefaultWindow
	}
	out := in.Config.LLM.MaxTokens
	if out <= 0 {
		out = llm.DefaultMaxTokens
	}
	window -= out + codegenPromptOverhead + llm.EstimateTokens(swi) + llm.EstimateTokens(feedback) + llm.EstimateTokens(cx.Issue)
	fixed := 0
	for _, it := range items {
		if it.Priority == contextpack.PriorityInterface {
			fixed += contextpack.ItemTokens(it, llm.EstimateTokens)
		}
	}
	window = min(window, fixed+max(codegenPromptTarget-fixed, codegenMinContext))
	if limit != contextpack.NoLimit {
		// The never-dropped items stay: if they alone are over the
		// model's window, the provider refuses again and the repack
		// escalates with its figures.
		window = min(window, max(limit, fixed))
	}
	pack, err := contextpack.Assemble(items, max(window, 0), llm.EstimateTokens)
	var overflow *contextpack.OverflowError
	if errors.As(err, &overflow) {
		return nil, 0, &escalation.Error{Reason: fmt.Sprintf("sub-work-item %s: %v", r.rec.ID, err)}
	}
	if err != nil {
		return nil, 0, fmt.Errorf("assemble context for %s: %w", r.rec.ID, err)
	}
	var ifaces strings.Builder
	targets := []stagekit.SWIFileVar{}
	deps := []stagekit.SWIFileVar{}
	rest := []stagekit.SWIFileVar{}
	for _, it := range pack.Items {
		switch {
		case it.Kind == contextpack.KindFileToEdit:
			targets = append(targets, stagekit.SWIFileVar{Path: it.Path, Content: it.Content})
		case it.Priority == contextpack.PriorityInterface:
			fmt.Fprintf(&ifaces, "==> %s <==\n%s", it.Path, it.Content)
			if !strings.HasSuffix(it.Content, "\n") {
				ifaces.WriteByte('\n')
			}
		case it.Priority == contextpack.PriorityDependency:
			deps = append(deps, stagekit.SWIFileVar{Path: it.Path, Content: it.Content})
		default:
			rest = append(rest, stagekit.SWIFileVar{Path: it.Path, Content: it.Content})
		}
	}
	if ifaces.Len() == 0 {
		ifaces.WriteString(strings.Join(r.Item.Interfaces, "\n"))
	}
	vars := map[string]any{"SWI": swi, "Interfaces": ifaces.String(), "Context": rest, "Dependencies": deps, "Targets": targets}
	if cx.Issue != "" {
		vars["Issue"] = cx.Issue
	}
	if feedback != "" {
		vars["Feedback"] = feedback
	}
	return vars, pack.Tokens, nil
}
