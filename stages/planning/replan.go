// Planning's answer to an amended design (engine.DesignWatcher): the
// design files are read and pinned, and an approved amendment is planned
// again, its plan compared with the sub-work-items already filed.

package planning

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/stagekit"
)

// ReplanGitHub is what a re-plan uses: planning's port, the issue reads
// and label writes that move a changed sub-work-item's status, and the
// narrow close of an obsolete sub-issue of CogWorks's own.
type ReplanGitHub interface {
	GitHub
	stagekit.SWIStatusWriter
	ObsoleteCloser
	PullReader
	DefaultBranchReader
}

// Replanner watches the design a plan was made from and re-plans on an
// amended one.
type Replanner struct {
	Executor
	Status stagekit.SWIStatusWriter
	Closer ObsoleteCloser
	Pulls  PullReader
	// Default watches the default branch (Design); nil watches only the
	// design files' own branches.
	Default DefaultBranchReader
}

// NewReplanner returns the re-planner over d and gh.
func NewReplanner(d stagekit.Deps, gh ReplanGitHub) Replanner {
	return Replanner{Executor: New(d, gh), Status: gh, Closer: gh, Pulls: gh, Default: gh}
}

var _ engine.DesignWatcher = Replanner{}

// Replan implements engine.DesignWatcher: one planning call on the
// amended specification (kept in a comment keyed by the amendment, so a
// re-run asks again for nothing), then, by sub-work-item id, new items
// are filed as sub-issues, changed ones reset to pending and told, and
// obsolete ones dropped from the plan, told on their sub-issue (and PR)
// and their sub-issue closed as not planned (retire).
// Unaffected records come back unchanged: their issues, branches and PRs
// see no request.
func (r Replanner) Replan(ctx context.Context, in engine.StageInput) (engine.Replanned, error) {
	snap, n := in.Snapshot, in.Issue.Number
	if snap.Amended == nil {
		return engine.Replanned{}, errors.New("re-plan: no amended design to plan from")
	}
	in.Stage = pipeline.StagePlanning
	items, err := r.amendedPlan(ctx, in)
	if err != nil {
		return engine.Replanned{}, err
	}
	d := diffPlan(snap.SubWorkItems, items)
	w := subIssueWriter{GitHub: r.GitHub, repo: in.Repo, bot: in.BotLogin, Parent: n, total: len(items),
		labels: idem.NewLabels(r.GitHub, in.Repo, pipeline.LabelSpec), issueOf: map[string]int{}}
	for _, rec := range snap.SubWorkItems {
		w.issueOf[rec.ID] = rec.Issue
	}
	if len(d.added) > 0 {
		if err := w.prepare(ctx); err != nil {
			return engine.Replanned{}, err
		}
	}
	order := 0
	for _, rec := range snap.SubWorkItems {
		order = max(order, rec.Order)
	}
	out := engine.Replanned{}
	for _, it := range items {
		old := snap.SubWorkItem(it.ID)
		switch {
		case old == nil:
			order++
			issue, err := w.write(ctx, it, order)
			if err != nil {
				return engine.Replanned{}, err
			}
			out.SubWorkItems = append(out.SubWorkItems, pipeline.SWI{SubWorkItem: it, Issue: issue.Number, Order: order, Status: pipeline.SWIPending})
			out.Added = append(out.Added, it.ID)
		case slices.Contains(d.changed, it.ID):
			rec := pipeline.SWI{SubWorkItem: it, Issue: old.Issue, Order: old.Order, Status: pipeline.SWIPending, Branch: old.Branch, PR: old.PR, Usage: old.Usage}
			if err := r.tell(ctx, in, rec.Issue, "changed", fmt.Sprintf("The specification of #%d was amended and approved, and the re-plan changed this sub-work-item; CogWorks builds it again from the amended plan (its PR, if any, gets the new commits).\n\n%s", n, planEntry(it))); err != nil {
				return engine.Replanned{}, err
			}
			out.SubWorkItems = append(out.SubWorkItems, rec)
			out.Changed = append(out.Changed, it.ID)
		default:
			out.SubWorkItems = append(out.SubWorkItems, *old)
		}
		w.issueOf[it.ID] = out.SubWorkItems[len(out.SubWorkItems)-1].Issue
	}
	for _, id := range d.obsolete {
		if err := r.retire(ctx, in, *snap.SubWorkItem(id)); err != nil {
			return engine.Replanned{}, err
		}
		out.Obsolete = append(out.Obsolete, id)
	}
	// The changed ones' status labels go back to pending, as their
	// records in out already say (the engine records out).
	next := pipeline.Snapshot{WorkItem: snap.WorkItem, SubWorkItems: out.SubWorkItems}
	for _, id := range out.Changed {
		if _, err := stagekit.SetSWIStatus(ctx, r.Status, in.Repo, &next, id, pipeline.SWIPending); err != nil {
			return engine.Replanned{}, err
		}
	}
	slices.SortStableFunc(out.SubWorkItems, func(a, b pipeline.SWI) int { return a.Order - b.Order })
	return out, nil
}

// amendedPlan is the plan of the amended design: from its comment when a
// run already asked, else from the LLM.
func (r Replanner) amendedPlan(ctx context.Context, in engine.StageInput) ([]planner.SubWorkItem, error) {
	n := in.Issue.Number
	key := stagekit.Key(n, "plan", "amended", in.Snapshot.Amended.Digest()[:16])
	comments := in.Comments
	if comments == nil {
		var err error
		if comments, err = r.GitHub.ListComments(ctx, in.Repo, n); err != nil {
			return nil, fmt.Errorf("list comments of #%d: %w", n, err)
		}
	}
	if c, ok := idem.FindComment(comments, in.BotLogin, key); ok {
		items, err := ParsePlan(c)
		if err != nil {
			return nil, corruptPlan(n, c, err)
		}
		return items, nil
	}
	spec, err := r.amendedSpec(ctx, in)
	if err != nil {
		return nil, err
	}
	items, err := r.planOn(ctx, in, spec)
	if err != nil {
		return nil, err
	}
	comment, err := PlanComment(key, items)
	if err != nil {
		return nil, err
	}
	comment.Title = "Implementation plan, re-planned on the amended design"
	if _, _, err := idem.UpsertComment(ctx, r.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: n, Key: key, Body: audit.Format(comment), Listed: comments}); err != nil {
		return nil, fmt.Errorf("post the amended plan of #%d: %w", n, err)
	}
	return items, nil
}

// amendedSpec is the specification the amendment approved: its kept
// text, else (too long to keep) the file as it reads now, which the
// engine checked has the approved digest.
func (r Replanner) amendedSpec(ctx context.Context, in engine.StageInput) (string, error) {
	snap := in.Snapshot
	if snap.Skips(pipeline.StageArchitecture) {
		return strings.TrimSpace("# " + in.Issue.Title + "\n\n" + in.Issue.Body), nil
	}
	p := stagekit.SpecPath(snap.WorkItem)
	if f, ok := snap.Amended.File(p); ok && !snap.Amended.Omitted {
		return f.Text, nil
	}
	if f, _ := snap.Amended.File(p); f.OnDefault && snap.Amended.Base != "" {
		c, _, err := r.read(ctx, in.Repo, p, snap.Amended.Base)
		return c, err
	}
	files, err := r.readDesign(ctx, in)
	if err != nil {
		return "", err
	}
	return files[p], nil
}

// tell upserts a keyed notice on a sub-work-item's issue.
func (r Replanner) tell(ctx context.Context, in engine.StageInput, issue int, what, body string) error {
	key := stagekit.Key(in.Issue.Number, "replan", what, fmt.Sprint(issue), in.Snapshot.Amended.Digest()[:16])
	title := map[string]string{"obsolete-pr": "obsolete sub-work-item", "obsolete-kept-open": "obsolete, left open"}[what]
	if title == "" {
		title = what
	}
	c := audit.Comment{Key: key, Title: "Re-planned: " + title, Body: body}
	if _, _, err := idem.UpsertComment(ctx, r.GitHub, in.Repo, in.BotLogin, idem.KeyedComment{Issue: issue, Key: key, Body: audit.Format(c)}); err != nil {
		return fmt.Errorf("tell sub-work-item #%d it is %s: %w", issue, what, err)
	}
	return nil
}

// planDiff is how an amended plan differs from the records, by id.
type planDiff struct {
	added, changed, obsolete []string
}

// diffPlan compares the amended plan with the filed records by stable
// identity (the id); an item whose title, description, files, symbols,
// interfaces, tests or dependencies differ is changed.
func diffPlan(records []pipeline.SWI, items []planner.SubWorkItem) planDiff {
	var d planDiff
	for _, it := range items {
		i := slices.IndexFunc(records, func(r pipeline.SWI) bool { return r.ID == it.ID })
		switch {
		case i < 0:
			d.added = append(d.added, it.ID)
		case !samePlan(records[i].SubWorkItem, it):
			d.changed = append(d.changed, it.ID)
		}
	}
	for _, r := range records {
		if !slices.ContainsFunc(items, func(it planner.SubWorkItem) bool { return it.ID == r.ID }) {
			d.obsolete = append(d.obsolete, r.ID)
		}
	}
	return d
}

func samePlan(a, b planner.SubWorkItem) bool {
	return a.Title == b.Title && a.Description == b.Description && a.Tests == b.Tests &&
		slices.Equal(a.Files, b.Files) && slices.Equal(a.Symbols, b.Symbols) &&
		slices.Equal(a.Interfaces, b.Interfaces) && slices.Equal(a.DependsOn, b.DependsOn)
}

// planEntry shows an item's amended plan entry.
func planEntry(it planner.SubWorkItem) string {
	return fmt.Sprintf("**%s**\n\nFiles: %s", stagekit.OneLine(it.Title), stagekit.CellText(strings.Join(it.Files, ", ")))
}
