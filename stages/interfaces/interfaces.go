package interfaces

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// Interfaces is the interface-design stage's structured LLM output (docs/spec.md
// §5.3).
type Interfaces struct {
	Files      []InterfaceFile          `json:"files"`
	Interfaces []pipeline.InterfaceDecl `json:"interfaces"`
}

// InterfaceFile is one generated file.
type InterfaceFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// GitHub is what interface design uses: the spec, the interface
// branch and PR.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.SpecReader
	idem.GitAPI
	idem.PullAPI
	// ListPullFiles lists the interface PR's files for a revision (Revise).
	ListPullFiles(ctx context.Context, repo github.Repo, number int) ([]github.PullFile, error)
}

// Executor designs the interfaces (docs/spec.md §5.3): one
// `interface_design` LLM call per attempt; the files' paths are checked,
// then the primary domain service validates them and its blocking
// diagnostics are fed back (artifact, location, severity, message); then
// the contract values extracted from them are checked against the
// interface registry and blocking findings are fed back too. The files go
// to cogworks/<N>/interfaces with a PR that references the issue and the
// spec PR. An existing PR for that branch is recorded without calling the
// LLM again.
type Executor struct {
	Deps   stagekit.Deps
	GitHub GitHub
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d stagekit.Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// Execute implements engine.StageExecutor: reuse a recorded interface PR,
// else design (LLM attempts checked by paths, the domain service and the
// registry), then publish (commit the files, open the PR) and record.
func (x Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	d, n := x.Deps, in.Issue.Number
	branch := stagekit.DesignBranch(n)
	base, err := stagekit.DefaultBranch(ctx, x.GitHub, in.Repo)
	if err != nil {
		return engine.StageResult{}, err
	}
	res, done, exists, err := x.recorded(ctx, in, branch, base)
	if err != nil || done {
		return res, err
	}
	if d.Domain == nil {
		return engine.StageResult{}, fmt.Errorf("interface design: %w", &domain.NoServiceError{})
	}
	design, err := x.design(ctx, in, nil)
	if err != nil {
		return engine.StageResult{}, err
	}
	same, err := x.unchanged(ctx, design)
	if err != nil {
		return engine.StageResult{}, err
	}
	if same {
		// GitHub refuses a PR with no commits (422 "No commits between"):
		// a design that changes nothing passes without one, and the
		// sub-work-items stack on the default branch directly.
		return engine.StageResult{Event: pipeline.EventDone,
			Summary: fmt.Sprintf("interface design changes nothing (%d interfaces, %d files, every one equal to `%s`): no interface PR opened", len(design.Interfaces), len(design.Files), base),
			Changes: []pipeline.Change{pipeline.SetInterfaces{Branch: base, Decls: design.Interfaces}}}, nil
	}
	pr, err := x.publish(ctx, in, idem.Branches{Head: branch, Base: base}, design, exists)
	if err != nil {
		return engine.StageResult{}, err
	}
	return engine.StageResult{Event: pipeline.EventDone,
		Summary: fmt.Sprintf("interface PR #%d (%d interfaces)", pr.Number, len(design.Interfaces)),
		Changes: []pipeline.Change{pipeline.SetInterfaces{Branch: branch, PR: pr.Number, Decls: design.Interfaces}}}, nil
}

// recorded finishes the stage from an existing interface PR whose body
// carries the interface list (a re-run after the PR was opened); done is
// false when there is none. exists reports whether the bot has any PR on
// the branch, so that publishing knows whether to look for it again.
func (x Executor) recorded(ctx context.Context, in engine.StageInput, branch, base string) (res engine.StageResult, done, exists bool, err error) {
	pr, found, err := stagekit.OwnPull(ctx, x.GitHub, in, branch, base)
	if err != nil || !found || !stagekit.RecordedOrNone(in.Snapshot.Artifacts.InterfacePR, pr.Number) {
		return engine.StageResult{}, false, found, err
	}
	decls, ok := stagekit.ParseInterfaceList(pr.Body)
	if !ok {
		return engine.StageResult{}, false, true, nil
	}
	return engine.StageResult{Event: pipeline.EventDone,
		Summary: fmt.Sprintf("interface PR #%d (%d interfaces)", pr.Number, len(decls)),
		Changes: []pipeline.Change{pipeline.SetInterfaces{Branch: branch, PR: pr.Number, Decls: decls}}}, true, true, nil
}

// design asks the LLM for the interfaces from the spec, the repository's
// modules and the registry's contracts (and extra, a revision's current
// files and review feedback) until check accepts an answer.
func (x Executor) design(ctx context.Context, in engine.StageInput, extra map[string]any) (Interfaces, error) {
	d, snap, n := x.Deps, in.Snapshot, in.Issue.Number
	spec, err := stagekit.ReadSpec(ctx, x.GitHub, in.Repo, snap)
	if err != nil {
		return Interfaces{}, err
	}
	modules, err := d.Modules(ctx)
	if err != nil {
		return Interfaces{}, fmt.Errorf("interface design of #%d: %w", n, err)
	}
	contracts, err := stagekit.ReadRepoFiles(ctx, d.Repository(), registryFile(in.Config.Interfaces.Directory))
	if err != nil {
		return Interfaces{}, fmt.Errorf("interface design of #%d: %w", n, err)
	}
	gw := d.Gateway(in)
	var design Interfaces
	_, err = stagekit.RunAttempts(ctx, in.Stage, stagekit.StageAttempts(in.Config), func(ctx context.Context, feedback string) (string, []string, error) {
		vars := map[string]any{"Title": in.Issue.Title, "Body": in.Issue.Body, "Spec": spec, "Modules": modules.Names}
		if len(contracts) > 0 {
			vars["Context"] = contracts
		}
		maps.Copy(vars, extra)
		if feedback != "" {
			vars["Feedback"] = feedback
		}
		var out Interfaces
		if _, err := gw.Structured(ctx, llm.Call{Stage: string(in.Stage), Template: prompts.InterfaceDesign, Vars: vars}, &out); err != nil {
			return "", nil, err
		}
		summary, problems, err := x.check(ctx, in, out)
		if err != nil || len(problems) > 0 {
			return summary, problems, err
		}
		design = out
		return "", nil, nil
	})
	return design, err
}

// publish commits the designed files to b.Head (from b.Base) and finds or
// opens the interface PR (opens it straight away when exists says the bot
// has none on the branch).
func (x Executor) publish(ctx context.Context, in engine.StageInput, b idem.Branches, design Interfaces, exists bool) (github.PullRequest, error) {
	branch, base := b.Head, b.Base
	d, n := x.Deps, in.Issue.Number
	files := make(map[string]string, len(design.Files))
	for _, f := range design.Files {
		files[f.Path] = f.Content
	}
	if _, _, err := idem.WriteFiles(ctx, x.GitHub, in.Repo, idem.Commit{
		Branch: branch, From: base, Files: files,
		Message: fmt.Sprintf("CogWorks: interfaces for #%d", n),
	}); err != nil {
		return github.PullRequest{}, fmt.Errorf("commit the interfaces of #%d: %w", n, err)
	}
	body, err := InterfacePullBody(n, in.Snapshot.Artifacts.SpecPR, design.Interfaces, d.Warnings)
	if err != nil {
		return github.PullRequest{}, err
	}
	open := idem.FindOrCreatePull
	if !exists {
		// recorded looked under the lock this step: don't look again.
		open = idem.CreateOrFindPull
	}
	pr, _, err := open(ctx, x.GitHub, in.Repo, in.BotLogin, github.NewPull{
		Title: fmt.Sprintf("CogWorks interfaces for #%d: %s", n, stagekit.OneLine(in.Issue.Title)),
		Body:  body, Head: branch, Base: base,
	})
	if err != nil {
		return github.PullRequest{}, fmt.Errorf("open the interface PR of #%d: %w", n, err)
	}
	return pr, nil
}

// unchanged reports whether every file of design already has the same
// content on the default branch (or the design has no files at all).
func (x Executor) unchanged(ctx context.Context, design Interfaces) (bool, error) {
	repo := x.Deps.Repository()
	for _, f := range design.Files {
		old, err := repo.ReadFile(ctx, f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("compare interface file %s with the default branch: %w", f.Path, err)
		}
		if string(old) != f.Content {
			return false, nil
		}
	}
	return true, nil
}

// check validates one design: paths and declarations, the domain
// service's validate, then the registry contracts of the extracted
// values. Domain service failures are returned as errors (transient ones
// stay retryable for the engine).
func (x Executor) check(ctx context.Context, in engine.StageInput, out Interfaces) (string, []string, error) {
	d := x.Deps
	if len(out.Files) == 0 && len(out.Interfaces) == 0 {
		return "", nil, nil // nothing to design: passes without a PR
	}
	problems := designProblems(out)
	if len(problems) > 0 {
		return fmt.Sprintf("the design has %d structural problems", len(problems)), problems, nil
	}
	req := domain.Request{
		WorkItem: fmt.Sprint(in.Issue.Number), Stage: string(in.Stage),
		Repository: domain.Repository{Path: d.Workspace},
	}
	for _, f := range out.Files {
		req.Artifacts = append(req.Artifacts, domain.Artifact{Path: f.Path, Content: f.Content})
	}
	res, err := d.Domain.Validate(ctx, req)
	if err != nil {
		return "", nil, fmt.Errorf("validate the interface design of #%d: %w", in.Issue.Number, err)
	}
	for _, diag := range res.Diagnostics {
		if diag.EffectiveSeverity() == domain.SeverityBlocking {
			problems = append(problems, diagnosticLine(diag))
		}
	}
	if len(problems) > 0 {
		return fmt.Sprintf("the domain service reported %d blocking diagnostics", len(problems)), problems, nil
	}
	if d.Registry == nil {
		return "", nil, nil
	}
	ext, err := d.Domain.ExtractInterfaces(ctx, req)
	if err != nil {
		return "", nil, fmt.Errorf("extract the contract values of #%d's interfaces: %w", in.Issue.Number, err)
	}
	values := make([]xval.ExtractedValue, 0, len(ext.Values))
	for _, v := range ext.Values {
		values = append(values, xval.ExtractedValue{Interface: v.Interface, Parameter: v.Parameter, Value: v.Value,
			Artifact: v.Artifact, Line: v.Location.Line, Domain: d.PrimaryDomain()})
	}
	for _, f := range xval.Validate(d.Registry, values) {
		if f.Severity == domain.SeverityBlocking {
			problems = append(problems, "contract violation: "+f.String())
		}
	}
	if len(problems) > 0 {
		return fmt.Sprintf("%d registry contract violations", len(problems)), problems, nil
	}
	return "", nil, nil
}

// designProblems checks the design's shape: at least one file, allowed
// paths (CheckGeneratedPaths), unique paths and interface ids, and every
// interface naming a generated file.
func designProblems(out Interfaces) []string {
	var problems []string
	if len(out.Files) == 0 {
		problems = append(problems, "files: the design has no files")
	}
	if len(out.Interfaces) == 0 {
		problems = append(problems, "interfaces: the design declares no interfaces")
	}
	paths := make([]string, 0, len(out.Files))
	seen := map[string]bool{}
	for i, f := range out.Files {
		if seen[f.Path] {
			problems = append(problems, fmt.Sprintf("files[%d]: duplicate path %q", i, f.Path))
		}
		seen[f.Path] = true
		paths = append(paths, f.Path)
	}
	problems = append(problems, stagekit.ErrorLines(stagekit.CheckGeneratedPaths(paths))...)
	ids := map[string]bool{}
	for i, decl := range out.Interfaces {
		switch {
		case strings.TrimSpace(decl.ID) == "":
			problems = append(problems, fmt.Sprintf("interfaces[%d]: empty id", i))
		case ids[decl.ID]:
			problems = append(problems, fmt.Sprintf("interfaces[%d]: duplicate id %q", i, decl.ID))
		}
		ids[decl.ID] = true
		if !seen[decl.File] {
			problems = append(problems, fmt.Sprintf("interfaces[%d] (%s): file %q is not one of the generated files", i, decl.ID, decl.File))
		}
	}
	return problems
}

// diagnosticLine renders a domain diagnostic as fed back to the LLM:
// artifact, location, severity, category and message.
func diagnosticLine(d domain.Diagnostic) string {
	loc := d.Artifact
	if loc == "" {
		loc = d.Location.File
	}
	if d.Location.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, d.Location.Line)
		if d.Location.Column > 0 {
			loc = fmt.Sprintf("%s:%d", loc, d.Location.Column)
		}
	}
	return fmt.Sprintf("%s: %s (%s): %s", loc, d.Severity, d.Category, d.Message)
}

// registryFile selects the interface registry's definition files.
func registryFile(dir string) func(string) bool {
	if dir == "" {
		dir = ".cogworks/interfaces"
	}
	dir = strings.Trim(stagekit.CleanModule(dir), "/") + "/"
	return func(p string) bool { return strings.HasPrefix(p, dir) && strings.HasSuffix(p, ".toml") }
}

// InterfacePullBody is the interface PR's body: references, the interface
// table and the list hidden for recovery.
func InterfacePullBody(n, specPR int, decls []pipeline.InterfaceDecl, warnings []string) (string, error) {
	var b strings.Builder
	if specPR > 0 {
		fmt.Fprintf(&b, "Refs #%d, builds on #%d\n\n", n, specPR)
	} else {
		fmt.Fprintf(&b, "Refs #%d\n\n", n)
	}
	fmt.Fprintf(&b, "CogWorks designed these interfaces for #%d from the approved specification.\n\n", n)
	b.WriteString("| id | name | file | summary |\n|---|---|---|---|\n")
	sorted := append([]pipeline.InterfaceDecl(nil), decls...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	for _, decl := range sorted {
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", stagekit.CellText(decl.ID), stagekit.CellText(decl.Name), stagekit.CellText(decl.File), stagekit.CellText(decl.Summary))
	}
	stagekit.WriteWarnings(&b, warnings)
	raw, err := json.Marshal(decls) // HTML-escaped: "-->" cannot occur
	if err != nil {
		return "", fmt.Errorf("render the interface PR body: %w", err)
	}
	b.WriteString("\n" + stagekit.InterfaceListMarker + string(raw) + " -->\n")
	return b.String(), nil
}
