package stages

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
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// defaultMaxSubWorkItems applies when the config sets no limit.
const defaultMaxSubWorkItems = 10

// planMarker prefixes the plan hidden in the plan comment, from which a
// re-run recovers it without calling the LLM.
const planMarker = "<!-- cogworks:plan="

// planningExecutor splits the work into sub-work-items (docs/spec.md §5.4): one
// `planning` LLM call per attempt, planner.Validate's cycle, coverage and
// shape errors fed back (ASSERT-PLAN-002/004), too many items escalated
// (ASSERT-PLAN-003). The validated plan is posted as a comment on the
// issue, then one sub-issue per item is found or created in topological
// order (ASSERT-PLAN-001, ASSERT-IDEM-002) with the §4 labels and linked
// as a GitHub sub-issue. A re-run reuses the posted plan.
type planningExecutor struct {
	d  Deps
	gh planningGitHub
}

// newPlanningExecutor returns the executor over d, on its own port of d.GitHub.
func newPlanningExecutor(d Deps) planningExecutor { return planningExecutor{d: d, gh: d.GitHub} }

// Execute implements engine.StageExecutor.
func (x planningExecutor) Execute(ctx context.Context, in engine.StageInput) (engine.StageResult, error) {
	snap, n := in.Snapshot, in.Issue.Number
	comments := in.Comments
	var err error
	if comments == nil {
		if comments, err = x.gh.ListComments(ctx, in.Repo, n); err != nil {
			return engine.StageResult{}, fmt.Errorf("list comments of #%d: %w", n, err)
		}
	}
	if snap.Skips(pipeline.StageInterfaceDesign) && snap.Artifacts.InterfaceBranch == "" {
		// No interface branch exists on this path: the sub-work-items
		// stack on the default branch instead, which holds no interface
		// changes of its own.
		if snap.Artifacts.InterfaceBranch, err = defaultBranch(ctx, x.gh, in.Repo); err != nil {
			return engine.StageResult{}, err
		}
	}
	planKey := key(n, "plan")
	var ordered []planner.SubWorkItem
	if c, ok := idem.FindComment(comments, in.BotLogin, planKey); ok {
		if ordered, err = parsePlan(c); err != nil {
			return engine.StageResult{}, corruptPlan(n, c, err)
		}
	}
	if len(ordered) == 0 {
		if ordered, err = x.plan(ctx, in); err != nil {
			return engine.StageResult{}, err
		}
		comment, err := planComment(planKey, ordered)
		if err != nil {
			return engine.StageResult{}, err
		}
		if _, _, err := idem.UpsertComment(ctx, x.gh, in.Repo, n, comments, in.BotLogin, planKey, audit.Format(comment)); err != nil {
			return engine.StageResult{}, fmt.Errorf("post the plan of #%d: %w", n, err)
		}
	}
	records, err := x.writeSubIssues(ctx, in, comments, ordered)
	if err != nil {
		return engine.StageResult{}, err
	}
	snap.SubWorkItems = records
	refs := make([]string, len(records))
	for i, r := range records {
		refs[i] = fmt.Sprintf("#%d", r.Issue)
	}
	return engine.StageResult{Event: pipeline.EventDone,
		Summary: fmt.Sprintf("%d sub-work-items: %s", len(records), strings.Join(refs, ", "))}, nil
}

// plan asks the LLM for a plan until planner.Validate accepts it and
// returns the items in topological order.
func (x planningExecutor) plan(ctx context.Context, in engine.StageInput) ([]planner.SubWorkItem, error) {
	d, snap := x.d, in.Snapshot
	decls, err := loadInterfaces(ctx, x.gh, in.Repo, in.BotLogin, snap)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(decls))
	for i, decl := range decls {
		ids[i] = decl.ID
	}
	spec, err := specOf(ctx, x.gh, in)
	if err != nil {
		return nil, err
	}
	limit := in.Config.Pipeline.MaxSubWorkItems
	if limit <= 0 {
		limit = defaultMaxSubWorkItems
	}
	repoMap := x.repoMapText(ctx, in)
	gw := d.gateway(snap)
	var ordered []planner.SubWorkItem
	_, err = runAttempts(ctx, in.Stage, stageAttempts(in.Config), func(ctx context.Context, feedback string) (string, []string, error) {
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
			return "the plan failed validation", errorLines(err), nil
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
func (x planningExecutor) repoMapText(ctx context.Context, in engine.StageInput) string {
	repo := x.d.Repo
	if repo == nil && x.d.Workspace != "" {
		repo = contextpack.LocalRepo{Dir: x.d.Workspace}
	}
	if repo == nil {
		return ""
	}
	all, err := repo.ListFiles(ctx)
	if err != nil {
		x.d.logger().Warn("planning without a repository map", "error", err)
		return ""
	}
	all = contextpack.ExcludeScenarios(all, in.Config.Scenarios.Directory)
	m, err := loadRepoMap(ctx, x.d, string(in.Stage), nil)
	if err != nil {
		x.d.logger().Warn("planning without a symbol map", "error", err)
	}
	return renderRepoMap(treeLines(all), m)
}

// treeLines lists the paths for the map, each fixture, vendored or
// generated directory collapsed to one line with its file count.
func treeLines(paths []string) []string {
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
