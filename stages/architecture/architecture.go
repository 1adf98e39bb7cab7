package architecture

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// GitHub is what architecture uses: the spec branch and PR.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.SpecReader
	idem.GitAPI
	idem.PullAPI
}

// Executor writes the specification (docs/spec.md §5.2): context from
// the repository's ADRs, coding standards and [constraints], one
// `architecture` LLM call per attempt, ValidateSpecification's problems fed
// back to the next attempt (ASSERT-ARCH-004), then the Markdown spec
// committed to cogworks/<N>/spec and a PR referencing the issue.
//
// Re-running finds its artifacts instead of redoing them: an existing PR
// for the spec branch is recorded as is (ASSERT-IDEM-001), and a spec file
// already on the branch only gets its PR opened; neither calls the LLM.
type Executor struct {
	Deps   stagekit.Deps
	GitHub GitHub
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d stagekit.Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// archDefaultWindow bounds the architecture context when the config
// names no model window.
const archDefaultWindow = 200000

// Execute implements engine.StageExecutor.
func (x Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	d, snap, n := x.Deps, in.Snapshot, in.Issue.Number
	branch := stagekit.SpecBranch(n)
	base, err := stagekit.DefaultBranch(ctx, x.GitHub, in.Repo)
	if err != nil {
		return engine.StageResult{}, err
	}
	pr, found, err := stagekit.OwnPull(ctx, x.GitHub, in, branch, base)
	if err != nil {
		return engine.StageResult{}, err
	}
	if found && stagekit.RecordedOrNone(snap.Artifacts.SpecPR, pr.Number) {
		return specDone(branch, pr.Number), nil
	}
	_, err = x.GitHub.GetFile(ctx, in.Repo, stagekit.SpecPath(n), branch)
	switch {
	case errors.Is(err, github.ErrNotFound):
		if err := x.writeSpec(ctx, in, branch, base); err != nil {
			return engine.StageResult{}, err
		}
	case err != nil:
		return engine.StageResult{}, fmt.Errorf("look for an earlier specification of #%d on %s: %w", n, branch, err)
	}
	open := idem.FindOrCreatePull
	if !found {
		// OwnPull looked under the lock this step: don't look again.
		open = idem.CreateOrFindPull
	}
	pr, _, err = open(ctx, x.GitHub, in.Repo, in.BotLogin, github.NewPull{
		Title: fmt.Sprintf("CogWorks spec for #%d: %s", n, stagekit.OneLine(in.Issue.Title)),
		Body:  SpecPullBody(n, d.Warnings),
		Head:  branch,
		Base:  base,
	})
	if err != nil {
		return engine.StageResult{}, fmt.Errorf("open the specification PR of #%d: %w", n, err)
	}
	return specDone(branch, pr.Number), nil
}

// specDone is the stage's decision once the specification PR is open:
// done, with the branch and PR recorded.
func specDone(branch string, pr int) engine.StageResult {
	return engine.StageResult{Event: pipeline.EventDone,
		Summary: fmt.Sprintf("specification PR #%d awaits approval", pr),
		Changes: []pipeline.Change{pipeline.SetSpec{Branch: branch, PR: pr}}}
}

// writeSpec generates, validates and commits the specification.
func (x Executor) writeSpec(ctx context.Context, in engine.StageInput, branch, base string) error {
	n := in.Issue.Number
	spec, err := x.generate(ctx, in, nil)
	if err != nil {
		return err
	}
	_, _, err = idem.WriteFiles(ctx, x.GitHub, in.Repo, idem.Commit{
		Branch:  branch,
		From:    base,
		Message: fmt.Sprintf("CogWorks: specification for #%d", n),
		Files:   map[string]string{stagekit.SpecPath(n): RenderSpecification(n, in.Issue.Title, spec)},
	})
	if err != nil {
		return fmt.Errorf("commit the specification of #%d: %w", n, err)
	}
	return nil
}

// generate runs the stage's attempts: the `architecture` call with the
// issue, its classification, the modules and the architecture context
// (and extra, a revision's current document and review feedback), each
// answer checked by ValidateSpecification and its problems fed back.
func (x Executor) generate(ctx context.Context, in engine.StageInput, extra map[string]any) (Specification, error) {
	d, snap, n := x.Deps, in.Snapshot, in.Issue.Number
	modules, err := d.Modules(ctx)
	if err != nil {
		return Specification{}, fmt.Errorf("architecture of #%d: %w", n, err)
	}
	docs, err := architectureContext(ctx, d.Repository(), in)
	if err != nil {
		return Specification{}, fmt.Errorf("architecture of #%d: %w", n, err)
	}
	var classification any = "(not available)"
	if snap.Classification != nil {
		classification = snap.Classification
	}
	gw := d.Gateway(in)
	var spec Specification
	limit := contextpack.NoLimit // lowered for good by a repack
	_, err = stagekit.RunAttempts(ctx, in.Stage, stagekit.StageAttempts(in.Config), func(ctx context.Context, feedback string) (string, []string, error) {
		var s Specification
		// A prompt over the model's window is repacked smaller once,
		// then escalated with the figures.
		var err error
		limit, err = contextpack.WithRepack(fmt.Sprintf("architecture of #%d", n), limit, func(limit int) (int, error) {
			pack, err := packArchitecture(docs, in, limit)
			if err != nil {
				return 0, err
			}
			vars := map[string]any{
				"Title": in.Issue.Title, "Body": in.Issue.Body, "Classification": classification,
				"Modules": modules.Names, "Context": pack.Items,
			}
			maps.Copy(vars, extra)
			if feedback != "" {
				vars["Feedback"] = feedback
			}
			s = Specification{}
			_, err = gw.Structured(ctx, llm.Call{Stage: string(in.Stage), Template: prompts.Architecture, Vars: vars}, &s)
			return pack.Tokens, err
		})
		if err != nil {
			return "", nil, err
		}
		if problems := ValidateSpecification(s, modules, in.Config.Constraints, d.Registry); len(problems) > 0 {
			return fmt.Sprintf("the specification failed %d deterministic checks", len(problems)), problems, nil
		}
		spec = s
		return "", nil, nil
	})
	return spec, err
}

// architectureContext gathers ADRs (docs/adr/*.md, docs/decisions/**),
// coding standards (CONTRIBUTING.md, docs/standards*.md) and the
// configured architectural constraints; packArchitecture fits them.
func architectureContext(ctx context.Context, repo contextpack.Repository, in engine.StageInput) ([]contextpack.Item, error) {
	files, err := stagekit.ReadRepoFiles(ctx, repo, func(p string) bool { return architectureDoc(p) != 0 })
	if err != nil {
		return nil, err
	}
	items := make([]contextpack.Item, 0, len(files)+1)
	for _, f := range files {
		f.Priority = architectureDoc(f.Path)
		f.Kind = "document"
		items = append(items, f)
	}
	if c, ok := stagekit.ConstraintItem(in.Config.Constraints.ForbiddenImports); ok {
		items = append(items, c)
	}
	return items, nil
}

// packArchitecture fits the architecture context into half the model's
// context window (constraints are kept longest, then standards), or into
// limit unless it is contextpack.NoLimit (a repack after the provider refused the prompt as
// over its window).
func packArchitecture(items []contextpack.Item, in engine.StageInput, limit int) (contextpack.Pack, error) {
	window := in.Config.LLM.ContextWindow
	if window <= 0 {
		window = archDefaultWindow
	}
	budget := window / 2
	if limit != contextpack.NoLimit {
		budget = min(budget, limit)
	}
	pack, err := contextpack.Assemble(items, budget, llm.EstimateTokens)
	if err != nil {
		return contextpack.Pack{}, fmt.Errorf("assemble the architecture context: %w", err)
	}
	return pack, nil
}

// architectureDoc returns the context priority of an architecture
// document, 0 for other files.
func architectureDoc(p string) int {
	lower := strings.ToLower(p)
	switch {
	case lower == "contributing.md", lower == "docs/contributing.md",
		strings.HasPrefix(lower, "docs/standards") && path.Ext(lower) == ".md":
		return contextpack.PriorityStandard
	case strings.HasPrefix(lower, "docs/adr/") && path.Ext(lower) == ".md",
		strings.HasPrefix(lower, "docs/decisions/") && path.Ext(lower) == ".md":
		return contextpack.PriorityOther
	}
	return 0
}

// SpecPullBody is the body of the specification PR.
func SpecPullBody(n int, warnings []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Refs #%d\n\n", n)
	fmt.Fprintf(&b, "CogWorks wrote this specification for #%d. **It needs human approval** before interface design starts: "+
		"review it, then add the `%s` label to #%d (or merge this PR).\n", n, pipeline.LabelApprove, n)
	stagekit.WriteWarnings(&b, warnings)
	return b.String()
}
