package stages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// writeSubIssues finds or creates one sub-issue per item, in order, and
// links each to the parent. Existing records keep their progress.
func (x planningExecutor) writeSubIssues(ctx context.Context, in engine.StageInput, comments []github.Comment, ordered []planner.SubWorkItem) ([]pipeline.SWI, error) {
	w := subIssueWriter{gh: x.gh, repo: in.Repo, bot: in.BotLogin, parent: in.Issue.Number, total: len(ordered),
		labels: idem.NewLabels(x.gh, in.Repo, pipeline.LabelSpec), issueOf: map[string]int{}}
	if err := w.prepare(ctx); err != nil {
		return nil, err
	}
	records := make([]pipeline.SWI, 0, len(ordered))
	for i, it := range ordered {
		issue, err := w.write(ctx, it, i+1)
		if err != nil {
			return nil, err
		}
		records = append(records, swiRecord(in.Snapshot, it, issue.Number, i+1))
	}
	if w.noSubIssues {
		if err := w.postTaskList(ctx, comments, records); err != nil {
			return nil, err
		}
	}
	return records, nil
}

// postTaskList lists the sub-work-items as a task list on the parent
// where GitHub has no sub-issues (GitHub Enterprise Server before 3.20):
// each sub-issue already names its parent in its body and marker, and the
// parent names its sub-issues here.
func (w *subIssueWriter) postTaskList(ctx context.Context, comments []github.Comment, records []pipeline.SWI) error {
	var b strings.Builder
	b.WriteString("This GitHub has no sub-issues API, so the sub-work-items are linked here and by the marker in each one's body.\n\n")
	for _, r := range records {
		fmt.Fprintf(&b, "- [ ] #%d\n", r.Issue)
	}
	k := key(w.parent, "sub-work-items")
	body := audit.Format(audit.Comment{Key: k, Title: "Sub-work-items", Body: b.String()})
	if _, _, err := idem.UpsertComment(ctx, w.gh, w.repo, w.parent, comments, w.bot, k, body); err != nil {
		return fmt.Errorf("post the sub-work-item task list of #%d: %w", w.parent, err)
	}
	return nil
}

// subIssueWriter files the plan's sub-issues on the parent, one at a time
// in topological order, so each names its dependencies' issue numbers.
type subIssueWriter struct {
	gh   planningGitHub
	repo github.Repo
	// bot is the bot's login: only its issues are CogWorks's.
	bot           string
	parent, total int
	labels        *idem.Labels
	// issueOf maps the items written so far to their issue numbers.
	issueOf  map[string]int
	isLinked map[int]bool
	// noSubIssues is set when GitHub has no sub-issues API (404 on the
	// parent's list): links are then a task list on the parent.
	noSubIssues bool
	// swiIssues remembers the step's one listing of the repository's
	// sub-work-item issues (nil: not listed yet) for every item's marker
	// search; the issues this step creates are added to it.
	swiIssues *swiIssueList
}

// swiIssueList answers idem.FindOrCreateIssue's listing once per planning
// step: every item searched the same list, one request each, though only
// this step (holding the lock) adds to it.
type swiIssueList struct {
	api    idem.IssueAPI
	filter github.IssueFilter
	issues []github.Issue
	listed bool
}

// ListIssues implements idem.IssueAPI for the one filter it was made for.
func (l *swiIssueList) ListIssues(ctx context.Context, repo github.Repo, f github.IssueFilter) ([]github.Issue, error) {
	if f.State != l.filter.State || !slices.Equal(f.Labels, l.filter.Labels) {
		return l.api.ListIssues(ctx, repo, f)
	}
	if !l.listed {
		issues, err := l.api.ListIssues(ctx, repo, f)
		if err != nil {
			return nil, err
		}
		l.issues, l.listed = issues, true
	}
	return slices.Clone(l.issues), nil
}

// CreateIssue implements idem.IssueAPI, remembering the new issue.
func (l *swiIssueList) CreateIssue(ctx context.Context, repo github.Repo, ni github.NewIssue) (github.Issue, error) {
	is, err := l.api.CreateIssue(ctx, repo, ni)
	if err == nil && l.listed {
		l.issues = append(l.issues, is)
	}
	return is, err
}

// prepare creates the repository labels every sub-issue carries and reads
// which issues are already linked as sub-issues of the parent.
func (w *subIssueWriter) prepare(ctx context.Context) error {
	labels := []string{pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending)}
	for i := range w.total {
		labels = append(labels, pipeline.OrderLabel(i+1))
	}
	if err := w.labels.EnsureRepoLabels(ctx, labels...); err != nil {
		return err
	}
	linked, err := w.gh.ListSubIssues(ctx, w.repo, w.parent)
	if errors.Is(err, github.ErrNotFound) {
		// The parent exists (this step runs on it): the endpoint does not,
		// as on GitHub Enterprise Server 3.17–3.19.
		w.noSubIssues = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("list sub-issues of #%d: %w", w.parent, err)
	}
	w.isLinked = map[int]bool{}
	for _, is := range linked {
		w.isLinked[is.Number] = true
	}
	return nil
}

// write finds (by its hidden marker) or creates the sub-issue of item it,
// brings an existing one's labels up to date, and links it to the parent.
func (w *subIssueWriter) write(ctx context.Context, it planner.SubWorkItem, order int) (github.Issue, error) {
	n := w.parent
	want := []string{pipeline.LabelSubWorkItem, pipeline.OrderLabel(order)}
	for _, dep := range it.DependsOn {
		want = append(want, pipeline.DependsOnLabel(w.issueOf[dep]))
	}
	if err := w.labels.EnsureRepoLabels(ctx, want...); err != nil {
		return github.Issue{}, err
	}
	marker := fmt.Sprintf("<!-- cogworks:swi=%d/%s -->", n, it.ID)
	filter := github.IssueFilter{State: "all", Labels: []string{pipeline.LabelSubWorkItem}}
	if w.swiIssues == nil {
		w.swiIssues = &swiIssueList{api: w.gh, filter: filter}
	}
	issue, created, err := idem.FindOrCreateIssue(ctx, w.swiIssues, w.repo, w.bot, marker, filter,
		github.NewIssue{
			Title:  fmt.Sprintf("[#%d %d/%d] %s", n, order, w.total, oneLine(it.Title)),
			Body:   subIssueBody(n, marker, it, w.issueOf),
			Labels: append(slices.Clone(want), pipeline.StatusLabel(pipeline.SWIPending)),
		})
	if err != nil {
		return github.Issue{}, fmt.Errorf("sub-work-item %s of #%d: %w", it.ID, n, err)
	}
	if !created {
		if !hasStatusLabel(issue.Labels) {
			want = append(want, pipeline.StatusLabel(pipeline.SWIPending))
		}
		for _, l := range want {
			if _, err := w.labels.Ensure(ctx, issue.Number, issue.Labels, l); err != nil {
				return github.Issue{}, fmt.Errorf("sub-work-item %s of #%d: %w", it.ID, n, err)
			}
		}
	}
	if !w.noSubIssues && !w.isLinked[issue.Number] {
		if err := w.link(ctx, issue); err != nil {
			return github.Issue{}, err
		}
	}
	w.issueOf[it.ID] = issue.Number
	return issue, nil
}

// link makes issue a sub-issue of the parent. GitHub answers 422 with
// one message both when it already is and when it has another parent, so
// a 422 is settled by listing the parent's sub-issues again.
func (w *subIssueWriter) link(ctx context.Context, issue github.Issue) error {
	err := w.gh.AddSubIssue(ctx, w.repo, w.parent, issue.ID)
	if err == nil || !errors.Is(err, github.ErrUnprocessable) {
		if err != nil {
			return fmt.Errorf("link sub-issue #%d to #%d: %w", issue.Number, w.parent, err)
		}
		return nil
	}
	linked, lerr := w.gh.ListSubIssues(ctx, w.repo, w.parent)
	if lerr != nil {
		return fmt.Errorf("link sub-issue #%d to #%d: %w (then: %w)", issue.Number, w.parent, err, lerr)
	}
	for _, is := range linked {
		if is.Number == issue.Number {
			return nil // already linked: a previous run got this far
		}
	}
	return &escalation.Error{Code: "sub_issue_has_other_parent", Reason: fmt.Sprintf(
		"#%d cannot become a sub-issue of #%d: GitHub refused the link (%v) and it is not among #%d's sub-issues, so it most likely has another parent; remove it there and add the cogworks:retry label",
		issue.Number, w.parent, err, w.parent)}
}

// swiRecord is the snapshot record of item it filed as issue. A record
// already in the snapshot for the same item keeps what it holds (attempts,
// remediation cycles, cost, feedback, committed files, findings) and, for
// the same issue too, its progress (status, branch, PR).
func swiRecord(snap *pipeline.Snapshot, it planner.SubWorkItem, issue, order int) pipeline.SWI {
	rec := pipeline.SWI{Status: string(pipeline.SWIPending)}
	if old := snap.SubWorkItem(it.ID); old != nil {
		rec = *old
		if old.Issue != issue {
			rec.Status, rec.Branch, rec.PR = string(pipeline.SWIPending), "", 0
		}
	}
	rec.SubWorkItem, rec.Issue, rec.Order = it, issue, order
	return rec
}

func hasStatusLabel(labels []string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return strings.HasPrefix(l, pipeline.LabelStatusPrefix) })
}

// subIssueBody is a sub-issue's body: marker, parent reference, the lists
// code generation reads back (files, interfaces), tests and description.
// Everything but the marker is LLM output, made inert (audit.Untrusted) so
// that the marker is the body's only one.
func subIssueBody(n int, marker string, it planner.SubWorkItem, issueOf map[string]int) string {
	var b strings.Builder
	b.WriteString(marker + "\n")
	fmt.Fprintf(&b, "Part of #%d\n\n", n)
	if len(it.DependsOn) > 0 {
		deps := make([]string, len(it.DependsOn))
		for i, dep := range it.DependsOn {
			deps[i] = fmt.Sprintf("#%d (`%s`)", issueOf[dep], audit.Untrusted(dep))
		}
		fmt.Fprintf(&b, "Depends on %s\n\n", strings.Join(deps, ", "))
	}
	writeList(&b, "Files", it.Files)
	if len(it.Symbols) > 0 {
		writeList(&b, "Symbols", it.Symbols)
	}
	writeList(&b, "Interfaces", it.Interfaces)
	b.WriteString("## Tests\n\n" + audit.Untrusted(strings.TrimSpace(it.Tests)) + "\n\n")
	b.WriteString("## Description\n\n" + audit.Untrusted(strings.TrimSpace(it.Description)) + "\n")
	return b.String()
}

func writeList(b *strings.Builder, heading string, items []string) {
	fmt.Fprintf(b, "## %s\n\n", heading)
	if len(items) == 0 {
		b.WriteString("- (none)\n\n")
		return
	}
	for _, it := range items {
		fmt.Fprintf(b, "- `%s`\n", audit.Untrusted(strings.ReplaceAll(it, "`", "'")))
	}
	b.WriteString("\n")
}

// planComment renders the plan for humans with the plan hidden for
// recovery, under key.
func planComment(key string, items []planner.SubWorkItem) (audit.Comment, error) {
	var b strings.Builder
	b.WriteString("Sub-work-items in implementation order:\n\n| # | id | title | depends on | interfaces |\n|---|---|---|---|---|\n")
	for i, it := range items {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s |\n", i+1, cellText(it.ID), cellText(it.Title),
			cellText(strings.Join(it.DependsOn, ", ")), cellText(strings.Join(it.Interfaces, ", ")))
	}
	raw, err := json.Marshal(items) // HTML-escaped: "<" and ">" cannot occur
	if err != nil {
		return audit.Comment{}, fmt.Errorf("render the plan comment: %w", err)
	}
	return audit.Comment{Key: key, Title: "Implementation plan", Body: b.String(), Hidden: planMarker + string(raw) + " -->"}, nil
}

// codeCorruptPlan is the escalation code of an unreadable plan comment.
const codeCorruptPlan = "corrupt_plan_comment"

// parsePlan recovers the ordered plan from the plan comment. CogWorks writes
// that comment whole, so one it cannot read was edited or damaged: that is
// an error, never a reason to plan again, because a new plan could create
// sub-issues that contradict the ones already filed from the old one.
func parsePlan(c github.Comment) ([]planner.SubWorkItem, error) {
	_, rest, ok := strings.Cut(c.Body, planMarker)
	if !ok {
		return nil, errors.New("the hidden plan block is missing")
	}
	raw, _, ok := strings.Cut(rest, " -->")
	if !ok {
		return nil, errors.New("the hidden plan block is not terminated by -->")
	}
	var items []planner.SubWorkItem
	if err := json.Unmarshal([]byte(raw), &items); err != nil {
		return nil, fmt.Errorf("the hidden plan block is not a JSON list of sub-work-items: %w", err)
	}
	if len(items) == 0 {
		return nil, errors.New("the hidden plan block lists no sub-work-items")
	}
	return items, nil
}

// corruptPlan hands an unreadable plan comment to humans, naming it: they
// either restore it or delete it (then the next run plans again).
func corruptPlan(n int, c github.Comment, err error) error {
	where := fmt.Sprintf("comment %d", c.ID)
	if c.HTMLURL != "" {
		where += " (" + c.HTMLURL + ")"
	}
	reason := fmt.Sprintf("the plan %s on #%d cannot be read: %v; restore it, or delete it so that CogWorks plans again, then add %s",
		where, n, err, pipeline.LabelRetry)
	return &escalation.Error{Code: codeCorruptPlan, Reason: reason,
		Attempts: []escalation.Attempt{{N: 1, Summary: "the posted plan is unreadable", Diagnostics: []string{err.Error()}}}}
}
