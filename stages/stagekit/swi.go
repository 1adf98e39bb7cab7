package stagekit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// SWIBranch is the branch a SWI's code is committed to:
// cogworks/<N>/swi-<k>, k being the SWI's 1-based Order.
func SWIBranch(n int, rec pipeline.SWI) string {
	return pipeline.Branch{Item: n, What: "swi-" + strconv.Itoa(rec.Order)}.String()
}

// interfaceBranch is the branch of the interface-design stage.
func interfaceBranch(snap *pipeline.Snapshot) string {
	if snap.Artifacts.InterfaceBranch != "" {
		return snap.Artifacts.InterfaceBranch
	}
	return DesignBranch(snap.WorkItem)
}

// CurrentSWI returns a copy of the record of the SWI the per-SWI stages
// are working on (the machine's pipeline.Snapshot.CurrentSWI): what a
// stage decides about it goes back as pipeline.Change values.
func CurrentSWI(snap *pipeline.Snapshot) (pipeline.SWI, error) {
	if snap.CurrentSWI == "" {
		return pipeline.SWI{}, fmt.Errorf("work item #%d: no current sub-work-item in the state snapshot", snap.WorkItem)
	}
	rec := snap.SubWorkItem(snap.CurrentSWI)
	if rec == nil {
		return pipeline.SWI{}, fmt.Errorf("work item #%d: current sub-work-item %q is not among the planned ones", snap.WorkItem, snap.CurrentSWI)
	}
	return *rec, nil
}

// BranchOf is the branch a SWI's code lives on (recorded, or the canonical
// name when not recorded yet).
func BranchOf(snap *pipeline.Snapshot, rec pipeline.SWI) string {
	if rec.Branch != "" {
		return rec.Branch
	}
	return SWIBranch(snap.WorkItem, rec)
}

// SWIBase is the branch a SWI's branch starts from (stacked PRs): the
// branch of its last dependency in topological order, or the interface
// branch when it has none. With several dependencies the others' files are
// not on that branch, so code generation applies them in the SWI's commit
// as well (see depOutputs), and every SWI's tree builds on all the code it
// depends on.
func SWIBase(snap *pipeline.Snapshot, rec pipeline.SWI) string {
	var last *pipeline.SWI
	for _, dep := range rec.DependsOn {
		d := snap.SubWorkItem(dep)
		if d == nil {
			continue
		}
		if last == nil || d.Order > last.Order || (d.Order == last.Order && d.ID > last.ID) {
			last = d
		}
	}
	if last == nil {
		return interfaceBranch(snap)
	}
	return BranchOf(snap, *last)
}

// SetSWIStatus makes the SWI's issue carry cogworks:status:<status> and
// no other status label, and returns the change recording status in the
// snapshot (for the engine to apply). It is idempotent: labels already in
// the desired state cause no write.
func SetSWIStatus(ctx context.Context, gh SWIStatusWriter, repo github.Repo, snap *pipeline.Snapshot, id string, status pipeline.SWIStatus) (pipeline.Change, error) {
	return SetSWIStatusOf(ctx, gh, repo, snap, pipeline.SetSWIStatus{ID: id, Status: status}, nil)
}

// SetSWIStatusOf is SetSWIStatus for a caller that read the SWI's issue
// earlier in the same step (known, nil if not): its labels are used
// instead of reading the issue again. to names the SWI and its status;
// it is also the change returned.
func SetSWIStatusOf(ctx context.Context, gh SWIStatusWriter, repo github.Repo, snap *pipeline.Snapshot, to pipeline.SetSWIStatus, known *github.Issue) (pipeline.Change, error) {
	id, status := to.ID, to.Status
	rec := snap.SubWorkItem(id)
	if rec == nil {
		return nil, fmt.Errorf("set status of sub-work-item %q: not in the snapshot", id)
	}
	if !status.Valid() {
		return nil, fmt.Errorf("set status of sub-work-item %q: invalid status %q", id, status)
	}
	if rec.Issue > 0 {
		var issue github.Issue
		if known != nil && known.Number == rec.Issue {
			issue = *known
		} else {
			read, err := gh.GetIssue(ctx, repo, rec.Issue)
			if err != nil {
				return nil, fmt.Errorf("read sub-work-item %s#%d: %w", repo, rec.Issue, err)
			}
			issue = read
		}
		// One request for the whole change (planning created the status
		// labels with their colours): the wanted status in, any other out.
		want := pipeline.StatusLabel(status)
		labels := []string{want}
		for _, l := range issue.Labels {
			if !strings.HasPrefix(l, pipeline.LabelStatusPrefix) {
				labels = append(labels, l)
			}
		}
		if _, _, err := idem.SetLabelSet(ctx, gh, repo, rec.Issue, issue.Labels, labels); err != nil {
			return nil, fmt.Errorf("set status %s of sub-work-item %s: %w", status, rec.ID, err)
		}
	}
	return to, nil
}

// dependencyClosure returns the SWIs id depends on, directly or not, in
// topological order (by Order, then id).
func dependencyClosure(snap *pipeline.Snapshot, rec pipeline.SWI) ([]pipeline.SWI, error) {
	seen := map[string]bool{}
	var out []pipeline.SWI
	var visit func(r pipeline.SWI, path []string) error
	visit = func(r pipeline.SWI, path []string) error {
		for _, dep := range r.DependsOn {
			if slices.Contains(path, dep) {
				return fmt.Errorf("sub-work-item dependency cycle: %s → %s", strings.Join(path, " → "), dep)
			}
			if seen[dep] {
				continue
			}
			d := snap.SubWorkItem(dep)
			if d == nil {
				return fmt.Errorf("sub-work-item %s depends on unknown %q", r.ID, dep)
			}
			seen[dep] = true
			out = append(out, *d)
			if err := visit(*d, append(slices.Clone(path), dep)); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(rec, []string{rec.ID}); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b pipeline.SWI) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// PlanItem returns the planning stage's item for a SWI: its plan entry,
// else (a record migrated from a snapshot that kept no plan, which has
// only an id and dependencies) from the lists in the SWI issue's body.
func PlanItem(ctx context.Context, gh IssueReader, repo github.Repo, rec pipeline.SWI) (planner.SubWorkItem, error) {
	it := rec.SubWorkItem
	if it.Title != "" || it.Description != "" || len(it.Files) > 0 || len(it.Interfaces) > 0 || rec.Issue == 0 {
		return it, nil
	}
	issue, err := gh.GetIssue(ctx, repo, rec.Issue)
	if err != nil {
		return it, fmt.Errorf("read sub-work-item %s#%d: %w", repo, rec.Issue, err)
	}
	it.Title = issue.Title
	it.Description = issue.Body
	it.Interfaces = listAfterHeading(issue.Body, "interfaces")
	it.Files = listAfterHeading(issue.Body, "files")
	it.Symbols = listAfterHeading(issue.Body, "symbols")
	return it, nil
}

// listAfterHeading extracts the items of a Markdown list introduced by a
// line naming heading ("Interfaces:", "**Interfaces**", "## Interfaces"),
// or of a comma-separated list on that line after a colon.
func listAfterHeading(body, heading string) []string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		clean := strings.ToLower(strings.Trim(strings.TrimSpace(line), "#*_ "))
		if !strings.HasPrefix(clean, heading) {
			continue
		}
		rest := strings.TrimSpace(strings.TrimPrefix(clean, heading))
		if !strings.HasPrefix(rest, ":") && rest != "" {
			continue
		}
		var out []string
		if _, after, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(strings.Trim(after, "*_ ")) != "" {
			for _, f := range strings.Split(after, ",") {
				if v := cleanItem(f); v != "" {
					out = append(out, v)
				}
			}
			return out
		}
		for _, l := range lines[i+1:] {
			t := strings.TrimSpace(l)
			if t == "" && len(out) == 0 {
				continue
			}
			if !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "* ") {
				break
			}
			if v := cleanItem(t[2:]); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	return nil
}

func cleanItem(s string) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "`*_"))
	if s == "(none)" || s == "none" {
		return ""
	}
	if f := strings.Fields(s); len(f) > 0 {
		return strings.Trim(f[0], "`*_,")
	}
	return ""
}

// BranchTree lists the blobs of a branch's head tree, path → blob SHA.
func BranchTree(ctx context.Context, gh RepoReader, repo github.Repo, branch string) (map[string]string, error) {
	commit, err := gh.GetBranchHead(ctx, repo, branch)
	if err != nil {
		return nil, fmt.Errorf("read branch %s of %s: %w", branch, repo, err)
	}
	entries, err := gh.GetTree(ctx, repo, commit.TreeSHA, true)
	if err != nil {
		return nil, fmt.Errorf("read tree of %s in %s: %w", branch, repo, err)
	}
	out := make(map[string]string, len(entries))
	for _, e := range entries {
		if e.Type == "blob" {
			out[e.Path] = e.SHA
		}
	}
	return out, nil
}

// changedPaths lists, sorted, the files that are new or different on
// branch compared with base.
func changedPaths(ctx context.Context, gh RepoReader, repo github.Repo, branch, base string) ([]string, error) {
	head, err := BranchTree(ctx, gh, repo, branch)
	if err != nil {
		return nil, err
	}
	old, err := BranchTree(ctx, gh, repo, base)
	if err != nil {
		return nil, err
	}
	var out []string
	for p, sha := range head {
		if old[p] != sha {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// readFiles reads paths at ref. A path missing at ref is an error naming it.
func readFiles(ctx context.Context, gh FileReader, repo github.Repo, ref string, paths []string) (map[string]string, error) {
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := gh.GetFile(ctx, repo, p, ref)
		if err != nil {
			if errors.Is(err, github.ErrNotFound) {
				return nil, fmt.Errorf("read %s at %s in %s: file not found: %w", p, ref, repo, err)
			}
			return nil, fmt.Errorf("read %s at %s in %s: %w", p, ref, repo, err)
		}
		out[p] = string(b)
	}
	return out, nil
}

// WorkItem is the number of the issue the step works on (the SWI's or the parent's).
func WorkItem(in engine.StageInput) int {
	if in.Snapshot.WorkItem != 0 {
		return in.Snapshot.WorkItem
	}
	return in.Issue.Number
}

// SubIssueBody is a sub-issue's body: marker, parent reference, the lists
// code generation reads back (files, interfaces), tests and description.
// Everything but the marker is LLM output, made inert (audit.Untrusted) so
// that the marker is the body's only one.
func SubIssueBody(n int, marker string, it planner.SubWorkItem, issueOf map[string]int) string {
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
