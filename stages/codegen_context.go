package stages

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/planner"
)

// maxContextFileBytes skips repository files too large to be useful context.
const maxContextFileBytes = 256 << 10

// swiFileVar is a file as the prompt templates take it.
type swiFileVar struct {
	Path    string
	Content string
}

func fileVars(files map[string]string) []swiFileVar {
	out := make([]swiFileVar, 0, len(files))
	for _, p := range slices.Sorted(maps.Keys(files)) {
		out = append(out, swiFileVar{Path: p, Content: files[p]})
	}
	return out
}

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

// contextItems gathers the context below the dependency outputs:
// constraints (3), coding standards (4) and the files of the affected
// modules (5). Scenario files are never read (holdout, ASSERT-SCEN-002),
// nor anything else under .cogworks/.
func (e codeGenExecutor) contextItems(ctx context.Context, in engine.StageInput, item planner.SubWorkItem, src swiSources) ([]contextpack.Item, error) {
	var items []contextpack.Item
	if fi := in.Config.Constraints.ForbiddenImports; len(fi) > 0 {
		var b strings.Builder
		b.WriteString("Forbidden imports (a package under `from` must not import one under `to`):\n")
		for _, f := range fi {
			fmt.Fprintf(&b, "- %s must not import %s\n", f.From, f.To)
		}
		items = append(items, contextpack.Item{Priority: contextpack.PriorityConstraint, Kind: "constraint",
			Path: ".cogworks/config.toml [constraints]", Content: b.String()})
	}
	repo := e.d.Repo
	if repo == nil && e.d.Workspace != "" {
		repo = contextpack.LocalRepo{Dir: e.d.Workspace}
	}
	if repo == nil {
		return items, nil
	}
	all, err := repo.ListFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("list repository files for context: %w", err)
	}
	all = contextpack.ExcludeScenarios(all, in.Config.Scenarios.Directory)
	modules := map[string]int{} // directory → distance
	for _, f := range item.Files {
		modules[path.Dir(path.Clean(f))] = 0
	}
	if c := in.Snapshot.Classification; c != nil {
		for _, m := range c.AffectedModules {
			if _, ok := modules[m]; !ok {
				modules[path.Clean(m)] = 1
			}
		}
	}
	for _, p := range all {
		if strings.HasPrefix(p, ".cogworks/") || strings.HasPrefix(p, ".git/") {
			continue
		}
		if _, ok := src.Interfaces[p]; ok {
			continue
		}
		if _, ok := src.Deps[p]; ok {
			continue
		}
		prio, dist, ok := classifyContextFile(p, modules)
		if !ok {
			continue
		}
		b, err := repo.ReadFile(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("read %s for context: %w", p, err)
		}
		if len(b) > maxContextFileBytes || !utf8.Valid(b) || slices.Contains(b, 0) {
			continue
		}
		kind := map[int]string{contextpack.PriorityConstraint: "constraint", contextpack.PriorityStandard: "standard"}[prio]
		if kind == "" {
			kind = "file"
		}
		items = append(items, contextpack.Item{Priority: prio, Kind: kind, Path: p, Content: string(b), Distance: dist})
	}
	return items, nil
}

// classifyContextFile decides whether a repository file is context and at
// which priority: architecture decisions and constraint documents (3),
// coding standards (4), files of the SWI's directories and the affected
// modules (5, by distance).
func classifyContextFile(p string, modules map[string]int) (prio, dist int, ok bool) {
	lower := strings.ToLower(p)
	base := path.Base(lower)
	doc := strings.HasSuffix(base, ".md") || strings.HasSuffix(base, ".txt")
	switch {
	case doc && (strings.Contains(lower, "/adr/") || strings.HasPrefix(lower, "adr/") || strings.Contains(base, "constraint")):
		return contextpack.PriorityConstraint, 0, true
	case doc && (strings.Contains(base, "style") || strings.Contains(base, "standard") || strings.Contains(base, "contributing")):
		return contextpack.PriorityStandard, 0, true
	}
	best := -1
	for dir, d := range modules {
		if dir == "." || dir == "" {
			continue
		}
		if path.Dir(p) == dir || strings.HasPrefix(p, dir+"/") {
			if best < 0 || d < best {
				best = d
			}
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return contextpack.PriorityOther, best, true
}

// promptVars assembles the context package within the configured window
// (SPEC §8) and renders it into the code_generation variables.
func (e codeGenExecutor) promptVars(in engine.StageInput, r swiRun, others []contextpack.Item, feedback string) (map[string]any, error) {
	var items []contextpack.Item
	for _, p := range r.src.Own {
		items = append(items, contextpack.Item{Priority: contextpack.PriorityInterface, Kind: "interface", Path: p, Content: r.src.Interfaces[p]})
	}
	for _, p := range r.src.Direct {
		items = append(items, contextpack.Item{Priority: contextpack.PriorityDependency, Kind: "dependency-output", Path: p, Content: r.src.Deps[p]})
	}
	items = append(items, others...)
	items = contextpack.ExcludeScenarioItems(items, in.Config.Scenarios.Directory)

	swi := swiText(r.item)
	window := in.Config.LLM.ContextWindow
	if window <= 0 {
		window = codegenDefaultWindow
	}
	out := in.Config.LLM.MaxTokens
	if out <= 0 {
		out = llm.DefaultMaxTokens
	}
	window -= out + codegenPromptOverhead + llm.EstimateTokens(swi) + llm.EstimateTokens(feedback)
	pack, err := contextpack.Assemble(items, max(window, 0), llm.EstimateTokens)
	var overflow *contextpack.OverflowError
	if errors.As(err, &overflow) {
		return nil, &escalation.Error{Reason: fmt.Sprintf("sub-work-item %s: %v", r.rec.ID, err)}
	}
	if err != nil {
		return nil, fmt.Errorf("assemble context for %s: %w", r.rec.ID, err)
	}
	var ifaces strings.Builder
	deps := []swiFileVar{}
	rest := []swiFileVar{}
	for _, it := range pack.Items {
		switch it.Priority {
		case contextpack.PriorityInterface:
			fmt.Fprintf(&ifaces, "==> %s <==\n%s", it.Path, it.Content)
			if !strings.HasSuffix(it.Content, "\n") {
				ifaces.WriteByte('\n')
			}
		case contextpack.PriorityDependency:
			deps = append(deps, swiFileVar{Path: it.Path, Content: it.Content})
		default:
			rest = append(rest, swiFileVar{Path: it.Path, Content: it.Content})
		}
	}
	if ifaces.Len() == 0 {
		ifaces.WriteString(strings.Join(r.item.Interfaces, "\n"))
	}
	vars := map[string]any{"SWI": swi, "Interfaces": ifaces.String(), "Context": rest, "Dependencies": deps}
	if feedback != "" {
		vars["Feedback"] = feedback
	}
	return vars, nil
}
