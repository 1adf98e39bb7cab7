// Planning's second half: the plan's sub-issues, filed in topological
// order, linked to the parent (or listed on it where GitHub has no
// sub-issues), found again by their markers on a re-run.

package planning

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// writeSubIssues finds or creates one sub-issue per item, in order, and
// links each to the parent. Existing records keep their progress.
func (x Executor) writeSubIssues(ctx context.Context, in engine.StageInput, comments []github.Comment, ordered []planner.SubWorkItem) ([]pipeline.SWI, error) {
	w := subIssueWriter{GitHub: x.GitHub, repo: in.Repo, bot: in.BotLogin, Parent: in.Issue.Number, total: len(ordered),
		labels: idem.NewLabels(x.GitHub, in.Repo, pipeline.LabelSpec), issueOf: map[string]int{}}
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
	k := stagekit.Key(w.Parent, "sub-work-items")
	body := audit.Format(audit.Comment{Key: k, Title: "Sub-work-items", Body: b.String()})
	if _, _, err := idem.UpsertComment(ctx, w.GitHub, w.repo, w.bot, idem.KeyedComment{Issue: w.Parent, Key: k, Body: body, Listed: comments}); err != nil {
		return fmt.Errorf("post the sub-work-item task list of #%d: %w", w.Parent, err)
	}
	return nil
}

// subIssueWriter files the plan's sub-issues on the parent, one at a time
// in topological order, so each names its dependencies' issue numbers.
type subIssueWriter struct {
	GitHub GitHub
	repo   github.Repo
	// bot is the bot's login: only its issues are CogWorks's.
	bot           string
	Parent, total int
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
	linked, err := w.GitHub.ListSubIssues(ctx, w.repo, w.Parent)
	if errors.Is(err, github.ErrNotFound) {
		// The parent exists (this step runs on it): the endpoint does not,
		// as on GitHub Enterprise Server 3.17–3.19.
		w.noSubIssues = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("list sub-issues of #%d: %w", w.Parent, err)
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
	n := w.Parent
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
		w.swiIssues = &swiIssueList{api: w.GitHub, filter: filter}
	}
	issue, created, err := idem.FindOrCreateIssue(ctx, w.swiIssues, w.repo, w.bot, idem.MarkedIssue{Marker: marker, Filter: filter,
		New: github.NewIssue{
			Title:  fmt.Sprintf("[#%d %d/%d] %s", n, order, w.total, stagekit.OneLine(it.Title)),
			Body:   stagekit.SubIssueBody(n, marker, it, w.issueOf),
			Labels: append(slices.Clone(want), pipeline.StatusLabel(pipeline.SWIPending)),
		}})
	if err != nil {
		return github.Issue{}, fmt.Errorf("sub-work-item %s of #%d: %w", it.ID, n, err)
	}
	if !created {
		if !hasStatusLabel(issue.Labels) {
			want = append(want, pipeline.StatusLabel(pipeline.SWIPending))
		}
		// issue was read in this step: its labels are current, and those
		// missing go out in one request.
		labels, _, err := w.labels.Add(ctx, issue.Number, issue.Labels, want...)
		if err != nil {
			return github.Issue{}, fmt.Errorf("sub-work-item %s of #%d: %w", it.ID, n, err)
		}
		issue.Labels = labels
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
	err := w.GitHub.AddSubIssue(ctx, w.repo, w.Parent, issue.ID)
	if err == nil || !errors.Is(err, github.ErrUnprocessable) {
		if err != nil {
			return fmt.Errorf("link sub-issue #%d to #%d: %w", issue.Number, w.Parent, err)
		}
		return nil
	}
	linked, lerr := w.GitHub.ListSubIssues(ctx, w.repo, w.Parent)
	if lerr != nil {
		return fmt.Errorf("link sub-issue #%d to #%d: %w (then: %w)", issue.Number, w.Parent, err, lerr)
	}
	for _, is := range linked {
		if is.Number == issue.Number {
			return nil // already linked: a previous run got this far
		}
	}
	if len(linked) >= config.MaxSubIssues {
		return &escalation.Error{Code: "sub_issue_limit", Reason: fmt.Sprintf(
			"#%d cannot become a sub-issue of #%d: #%d already has %d sub-issues, GitHub's limit; close or unlink sub-issues of #%d that CogWorks did not file, or split the work item, then add the cogworks:retry label",
			issue.Number, w.Parent, w.Parent, len(linked), w.Parent)}
	}
	return &escalation.Error{Code: "sub_issue_has_other_parent", Reason: fmt.Sprintf(
		"#%d cannot become a sub-issue of #%d: GitHub refused the link (%v) and it is not among #%d's sub-issues, so it most likely has another parent; remove it there and add the cogworks:retry label",
		issue.Number, w.Parent, err, w.Parent)}
}

// swiRecord is the snapshot record of item it filed as issue. A record
// already in the snapshot for the same item keeps what it holds (attempts,
// remediation cycles, cost, feedback, committed files, findings) and, for
// the same issue too, its progress (status, branch, PR).
func swiRecord(snap *pipeline.Snapshot, it planner.SubWorkItem, issue, order int) pipeline.SWI {
	rec := pipeline.SWI{Status: pipeline.SWIPending}
	if old := snap.SubWorkItem(it.ID); old != nil {
		// A copy: the snapshot's record changes only through SetPlan.
		rec = *old
		if old.Issue != issue {
			rec.Status, rec.Branch, rec.PR = pipeline.SWIPending, "", 0
		}
	}
	rec.SubWorkItem, rec.Issue, rec.Order = it, issue, order
	return rec
}

func hasStatusLabel(labels []string) bool {
	return slices.ContainsFunc(labels, func(l string) bool { return strings.HasPrefix(l, pipeline.LabelStatusPrefix) })
}

// PlanComment renders the plan for humans with the plan hidden for
// recovery, under key.
func PlanComment(key string, items []planner.SubWorkItem) (audit.Comment, error) {
	var b strings.Builder
	b.WriteString("Sub-work-items in implementation order:\n\n| # | id | title | depends on | interfaces |\n|---|---|---|---|---|\n")
	for i, it := range items {
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s |\n", i+1, stagekit.CellText(it.ID), stagekit.CellText(it.Title),
			stagekit.CellText(strings.Join(it.DependsOn, ", ")), stagekit.CellText(strings.Join(it.Interfaces, ", ")))
	}
	raw, err := json.Marshal(items) // HTML-escaped: "<" and ">" cannot occur
	if err != nil {
		return audit.Comment{}, fmt.Errorf("render the plan comment: %w", err)
	}
	return audit.Comment{Key: key, Title: "Implementation plan", Body: b.String(), Hidden: PlanMarker + string(raw) + " -->"}, nil
}

// CodeCorruptPlan is the escalation code of an unreadable plan comment.
const CodeCorruptPlan = "corrupt_plan_comment"

// ParsePlan recovers the ordered plan from the plan comment. CogWorks writes
// that comment whole, so one it cannot read was edited or damaged: that is
// an error, never a reason to plan again, because a new plan could create
// sub-issues that contradict the ones already filed from the old one.
func ParsePlan(c github.Comment) ([]planner.SubWorkItem, error) {
	_, rest, ok := strings.Cut(c.Body, PlanMarker)
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
	return &escalation.Error{Code: CodeCorruptPlan, Reason: reason,
		Attempts: []escalation.Attempt{{N: 1, Summary: "the posted plan is unreadable", Diagnostics: []string{err.Error()}}}}
}
