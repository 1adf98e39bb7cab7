package planning

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// defaultMaxSubWorkItems applies when the config sets no limit.
const defaultMaxSubWorkItems = 10

// PlanMarker prefixes the plan hidden in the plan comment, from which a
// re-run recovers it without calling the LLM.
const PlanMarker = "<!-- cogworks:plan="

// GitHub is what planning uses: the spec and interface list, the
// plan comment, the sub-issues and their labels.
// It is the port this stage declares; *github.Client implements it.
type GitHub interface {
	stagekit.SpecReader
	stagekit.PullLister
	idem.CommentAPI
	idem.IssueAPI
	idem.LabelAPI
	stagekit.SubIssueAPI
}

// Executor splits the work into sub-work-items (docs/spec.md §5.4): one
// `planning` LLM call per attempt, planner.Validate's cycle, coverage and
// shape errors fed back (ASSERT-PLAN-002/004), too many items escalated
// (ASSERT-PLAN-003). The validated plan is posted as a comment on the
// issue, then one sub-issue per item is found or created in topological
// order (ASSERT-PLAN-001, ASSERT-IDEM-002) with the §4 labels and linked
// as a GitHub sub-issue. A re-run reuses the posted plan.
type Executor struct {
	Deps   stagekit.Deps
	GitHub GitHub
}

// New returns the executor over d and gh, the stage's own GitHub port.
func New(d stagekit.Deps, gh GitHub) Executor { return Executor{Deps: d, GitHub: gh} }

// Execute implements engine.StageExecutor.
func (x Executor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	snap, n := in.Snapshot, in.Issue.Number
	comments := in.Comments
	var err error
	if comments == nil {
		if comments, err = x.GitHub.ListComments(ctx, in.Repo, n); err != nil {
			return engine.StageResult{}, fmt.Errorf("list comments of #%d: %w", n, err)
		}
	}
	var decided []pipeline.Change
	if snap.Skips(pipeline.StageInterfaceDesign) && snap.Artifacts.InterfaceBranch == "" {
		// No interface branch exists on this path: the sub-work-items
		// stack on the default branch instead, which holds no interface
		// changes of its own (recorded as a design without a PR, whatever
		// follows in this step).
		base, err := stagekit.DefaultBranch(ctx, x.GitHub, in.Repo)
		if err != nil {
			return engine.StageResult{}, err
		}
		decided = append(decided, pipeline.SetInterfaces{Branch: base, Decls: snap.Interfaces})
	}
	res, err := x.planAndFile(ctx, in, comments)
	res.Changes = append(decided, res.Changes...)
	return res, err
}

// planAndFile posts the plan (made once, then read back from its comment)
// and files its sub-issues: the plan it returns as SetPlan.
func (x Executor) planAndFile(ctx context.Context, in engine.StageInput, comments []github.Comment) (engine.StageResult, error) {
	n := in.Issue.Number
	var err error
	planKey := stagekit.Key(n, "plan")
	var ordered []planner.SubWorkItem
	if c, ok := idem.FindComment(comments, in.BotLogin, planKey); ok {
		if ordered, err = ParsePlan(c); err != nil {
			return engine.StageResult{}, corruptPlan(n, c, err)
		}
	}
	if len(ordered) == 0 {
		if ordered, err = x.plan(ctx, in); err != nil {
			return engine.StageResult{}, err
		}
		comment, err := PlanComment(planKey, ordered)
		if err != nil {
			return engine.StageResult{}, err
		}
		if _, _, err := idem.UpsertComment(ctx, x.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: n, Key: planKey, Body: audit.Format(comment), Listed: comments}); err != nil {
			return engine.StageResult{}, fmt.Errorf("post the plan of #%d: %w", n, err)
		}
	}
	records, err := x.writeSubIssues(ctx, in, comments, ordered)
	if err != nil {
		return engine.StageResult{}, err
	}
	refs := make([]string, len(records))
	for i, r := range records {
		refs[i] = fmt.Sprintf("#%d", r.Issue)
	}
	return engine.StageResult{Event: pipeline.EventDone,
		Summary: fmt.Sprintf("%d sub-work-items: %s", len(records), strings.Join(refs, ", ")),
		Changes: []pipeline.Change{pipeline.SetPlan{SubWorkItems: records}}}, nil
}

// plan asks the LLM for a plan until planner.Validate accepts it and
// returns the items in topological order.
func (x Executor) plan(ctx context.Context, in engine.StageInput) ([]planner.SubWorkItem, error) {
	spec, err := stagekit.SpecOf(ctx, x.GitHub, in)
	if err != nil {
		return nil, err
	}
	return x.planOn(ctx, in, spec)
}

// planOn is plan on the given specification text (an amended one when
// re-planning).
func (x Executor) planOn(ctx context.Context, in engine.StageInput, spec string) ([]planner.SubWorkItem, error) {
	d, snap := x.Deps, in.Snapshot
	decls, err := stagekit.LoadInterfaces(ctx, x.GitHub, in.Repo, in.BotLogin, snap)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(decls))
	for i, decl := range decls {
		ids[i] = decl.ID
	}
	limit := in.Config.Pipeline.MaxSubWorkItems
	if limit <= 0 {
		limit = defaultMaxSubWorkItems
	}
	repoMap := x.repoMapText(ctx, in)
	gw := d.Gateway(in)
	var ordered []planner.SubWorkItem
	_, err = stagekit.RunAttempts(ctx, in.Stage, stagekit.StageAttempts(in.Config), func(ctx context.Context, feedback string) (string, []string, error) {
		vars := map[string]any{"Title": in.Issue.Title, "Spec": spec, "Interfaces": decls, "MaxItems": limit}
		if body := strings.TrimSpace(in.Issue.Body); body != "" {
			vars["Issue"] = body
		}
		if repoMap != "" {
			vars["RepoMap"] = repoMap
		}
		if feedback != "" {
			vars["Feedback"] = feedback
		}
		var p planner.Plan
		if _, err := gw.Structured(ctx, llm.Call{Stage: string(in.Stage), Template: prompts.Planning, Vars: vars}, &p); err != nil {
			return "", nil, err
		}
		items, err := planner.Validate(p, planner.Limits{MaxItems: limit}, ids)
		var esc *escalation.Error
		switch {
		case errors.As(err, &esc):
			return "", nil, &escalation.Error{
				Code:     esc.Code,
				Reason:   "the plan needs more sub-work-items than max_sub_work_items allows: " + esc.Reason,
				Attempts: []escalation.Attempt{{Summary: "the plan was escalated", Diagnostics: []string{esc.Reason}}},
			}
		case err != nil:
			return "the plan failed validation", stagekit.ErrorLines(err), nil
		}
		ordered = items
		return "", nil, nil
	})
	if err != nil {
		var esc *escalation.Error
		if errors.As(err, &esc) {
			for i := range esc.Attempts {
				esc.Attempts[i].N = i + 1
			}
		}
		return nil, err
	}
	return ordered, nil
}

// repoMapText is the repository map planning localises with: the file
// tree and, when the domain service offers repo_map, the symbol map. A
// map that cannot be built costs the plan its precision, not the run, so
// failures are logged and planning goes on without it.
func (x Executor) repoMapText(ctx context.Context, in engine.StageInput) string {
	repo := x.Deps.Repo
	if repo == nil && x.Deps.Workspace != "" {
		repo = contextpack.LocalRepo{Dir: x.Deps.Workspace}
	}
	if repo == nil {
		return ""
	}
	all, err := repo.ListFiles(ctx)
	if err != nil {
		x.Deps.Log().Warn("planning without a repository map", "error", err)
		return ""
	}
	all = contextpack.ExcludeScenarios(all, in.Config.Scenarios.Directory)
	m, err := stagekit.LoadRepoMap(ctx, x.Deps, string(in.Stage), nil)
	if err != nil {
		x.Deps.Log().Warn("planning without a symbol map", "error", err)
	}
	return stagekit.RenderRepoMap(TreeLines(all), m)
}

// TreeLines lists the paths for the map, each fixture, vendored or
// generated directory collapsed to one line with its file count.
func TreeLines(paths []string) []string {
	var out []string
	collapsed := map[string]int{}
	for _, p := range paths {
		if strings.HasPrefix(p, ".git/") {
			continue
		}
		dir := collapsedDir(p)
		if dir == "" {
			out = append(out, p)
			continue
		}
		if collapsed[dir] == 0 {
			out = append(out, dir) // placeholder, rewritten below
		}
		collapsed[dir]++
	}
	for i, p := range out {
		if n, ok := collapsed[p]; ok {
			out[i] = fmt.Sprintf("%s/ (%d files, not shown)", p, n)
		}
	}
	return out
}

// collapsedDir returns the fixture/vendor/.cogworks directory p lies in
// ("" when none).
func collapsedDir(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs[:len(segs)-1] {
		switch strings.ToLower(seg) {
		case "testdata", "fixtures", "vendor", "node_modules", ".cogworks":
			return strings.Join(segs[:i+1], "/")
		}
	}
	return ""
}
