package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cogworks/cogworks/pipeline"
)

// StatusOptions is what the status comment shows besides the snapshot.
type StatusOptions struct {
	// Headline is one line on what the last step did.
	Headline string
	// Warnings are shown prominently (budget thresholds, skipped domains).
	Warnings []string
	// RejectedApprovals lists approvals that did not count, e.g.
	// "mallory (read)".
	RejectedApprovals []string
	// BudgetTokens and BudgetUSD feed the cost table; 0 = unlimited.
	BudgetTokens int
	BudgetUSD    float64
}

// StatusKey is the key of a work item's status comment.
func StatusKey(workItem int) string { return Key(strconv.Itoa(workItem), "status") }

// StatusComment renders the single status comment of a work item, edited
// in place on every step: stage, gate, the machine diagram with the
// current state highlighted, artifacts, sub-work-items, approvals, cost so
// far, then the machine block (pipeline.RenderSnapshot) and the marker
// with key "<N>/status". Secrets in the snapshot's strings are redacted
// before rendering, so the block still parses.
func StatusComment(s pipeline.Snapshot, m pipeline.Machine, opts StatusOptions) (string, error) {
	clean, err := redactSnapshot(s)
	if err != nil {
		return "", fmt.Errorf("status comment for #%d: %w", s.WorkItem, err)
	}
	block, err := pipeline.RenderSnapshot(clean)
	if err != nil {
		return "", fmt.Errorf("status comment for #%d: %w", s.WorkItem, err)
	}
	var b strings.Builder
	if h := strings.TrimSpace(opts.Headline); h != "" {
		fmt.Fprintf(&b, "**%s**\n\n", oneLine(h))
	}
	for _, w := range opts.Warnings {
		fmt.Fprintf(&b, "> ⚠️ %s\n\n", oneLine(w))
	}
	writeState(&b, s)
	if len(opts.RejectedApprovals) > 0 {
		fmt.Fprintf(&b, "**Approvals that did not count** (`%s` needs write, maintain or admin permission): %s\n\n",
			pipeline.LabelApprove, oneLine(strings.Join(opts.RejectedApprovals, ", ")))
	}
	fmt.Fprintf(&b, "```mermaid\n%s```\n\n", m.Mermaid(pipeline.StateForSnapshot(s)))
	art := s.Artifacts
	if s.Skips(pipeline.StageInterfaceDesign) {
		// The "interface branch" of a design-skipping item is the
		// default branch its sub-work-items stack on, not a design.
		art.InterfaceBranch = ""
	}
	writeArtifacts(&b, art, s.SubWorkItems)
	writeApprovals(&b, s.Approvals)
	writeRevisions(&b, s.Revisions)
	writeRestacks(&b, s.Restacks)
	b.WriteString("#### Cost so far\n\n")
	b.WriteString(CostTable(s.Ledger, s.SubWorkItems, opts.BudgetTokens, opts.BudgetUSD))
	return Format(Comment{Key: StatusKey(s.WorkItem), Title: fmt.Sprintf("status of #%d", s.WorkItem), Body: b.String(), Hidden: block}), nil
}

func writeState(b *strings.Builder, s pipeline.Snapshot) {
	stage := string(s.Stage)
	if stage == "" {
		stage = "not started"
	}
	fmt.Fprintf(b, "**Stage:** %s", code(stage))
	if s.CurrentSWI != "" {
		fmt.Fprintf(b, " · **Sub-work-item:** %s", code(s.CurrentSWI))
	}
	fmt.Fprintf(b, " · **State:** %s\n\n", code(string(pipeline.StateForSnapshot(s))))
	if len(s.Skipped) > 0 {
		names := make([]string, len(s.Skipped))
		for i, st := range s.Skipped {
			names[i] = code(string(st))
		}
		fmt.Fprintf(b, "**Path:** skips %s (a small change: planning works from the issue text)\n\n", strings.Join(names, ", "))
	}
	if g := s.Gate; g != nil {
		fmt.Fprintf(b, "**Gate:** ⏳ after %s, waiting since %s for a user with write access to apply `%s`",
			code(string(g.Stage)), stamp(g.Since), pipeline.LabelApprove)
		if g.Reason != "" {
			fmt.Fprintf(b, " — %s", oneLine(g.Reason))
		}
		b.WriteString("\n\n")
		writeGateChange(b, s)
		writeDesignChange(b, s)
	} else {
		b.WriteString("**Gate:** none waiting\n\n")
	}
	if st := s.Stopped; st != nil {
		fmt.Fprintf(b, "**Stopped** ⏹ by @%s at %s: nothing runs until `/cogworks retry` or `%s` is applied again\n\n",
			oneLine(st.By), stamp(st.At), pipeline.LabelRun)
	}
	if f := s.Failure; f != nil {
		fmt.Fprintf(b, "**Failure:** at %s: %s (apply `%s` or comment `/cogworks retry` to resume)\n\n", code(string(f.Stage)), oneLine(f.Reason), pipeline.LabelRetry)
	}
	// A per-SWI stage's attempts are named swi/<id>/<stage>, beside the
	// work item's stages, sorted together.
	var attempts map[string]int
	add := func(key string, n int) {
		if attempts == nil {
			attempts = map[string]int{}
		}
		attempts[key] = n
	}
	for stage, n := range s.Attempts {
		add(string(stage), n)
	}
	for _, w := range s.SubWorkItems {
		for stage, n := range w.Attempts {
			add("swi/"+w.ID+"/"+string(stage), n)
		}
	}
	if len(attempts) > 0 {
		parts := make([]string, 0, len(attempts))
		for _, k := range mapKeys(attempts) {
			parts = append(parts, fmt.Sprintf("%s %d", code(k), attempts[k]))
		}
		fmt.Fprintf(b, "**Attempts:** %s\n\n", strings.Join(parts, ", "))
	}
}

func writeArtifacts(b *strings.Builder, a pipeline.Artifacts, swis []pipeline.SWI) {
	b.WriteString("#### Artifacts\n\n")
	pr := func(name string, number int, branch string) {
		if number == 0 && branch == "" {
			return
		}
		fmt.Fprintf(b, "- %s: %s", name, issueRef(number))
		if branch != "" {
			fmt.Fprintf(b, " (branch %s)", code(branch))
		}
		b.WriteString("\n")
	}
	pr("Specification PR", a.SpecPR, a.SpecBranch)
	pr("Interface PR", a.InterfacePR, a.InterfaceBranch)
	if a.SpecPR == 0 && a.SpecBranch == "" && a.InterfacePR == 0 && a.InterfaceBranch == "" {
		b.WriteString("- none yet\n")
	}
	b.WriteString("\n")
	if len(swis) == 0 {
		return
	}
	b.WriteString("#### Sub-work-items\n\n| SWI | issue | order | depends on | status | PR |\n|---|---|---:|---|---|---|\n")
	for _, w := range swis {
		deps := make([]string, len(w.DependsOn))
		for i, d := range w.DependsOn {
			deps[i] = code(d)
		}
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s | %s |\n", code(w.ID), issueRef(w.Issue), w.Order,
			cell(strings.Join(deps, ", ")), cell(string(w.Status)), issueRef(w.PR))
	}
	b.WriteString("\n")
}

func writeApprovals(b *strings.Builder, approvals []pipeline.Approval) {
	if len(approvals) == 0 {
		return
	}
	b.WriteString("#### Approvals\n\n")
	for _, a := range approvals {
		fmt.Fprintf(b, "- gate after %s", code(string(a.Stage)))
		if a.SWI != "" {
			fmt.Fprintf(b, " (SWI %s)", code(a.SWI))
		}
		fmt.Fprintf(b, " approved by @%s at %s via %s\n", oneLine(a.By), stamp(a.At), oneLine(string(a.Via)))
	}
	b.WriteString("\n")
}

// writeRevisions lists the last revision cycle of each PR revised on
// review feedback.
func writeRevisions(b *strings.Builder, revs []pipeline.RevisionRecord) {
	if len(revs) == 0 {
		return
	}
	b.WriteString("#### Revisions on review feedback\n\n")
	for _, r := range revs {
		if r.Action == pipeline.RevisionRerun || r.Action == pipeline.RevisionInfrastructure {
			// CI that failed on the infrastructure: no cycle, no thread.
			fmt.Fprintf(b, "- PR %s: CI %s, no cycle spent, at %s", issueRef(r.PR), oneLine(string(r.Action)), stamp(r.At))
			if r.Reason != "" {
				fmt.Fprintf(b, " — %s", oneLine(r.Reason))
			}
			b.WriteString("\n")
			continue
		}
		fmt.Fprintf(b, "- PR %s: cycle %d %s", issueRef(r.PR), r.Cycle, oneLine(string(r.Action)))
		if r.Commit != "" {
			c := r.Commit
			if len(c) > 12 {
				c = c[:12]
			}
			fmt.Fprintf(b, " in %s", code(c))
		}
		fmt.Fprintf(b, ", %d thread(s) answered at %s", r.Threads, stamp(r.At))
		if r.Reason != "" {
			fmt.Fprintf(b, " — %s", oneLine(r.Reason))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// writeRestacks lists the last restack of each PR of the stack: retargeted,
// updated with its base, or its conflict resolved or left to a maintainer.
func writeRestacks(b *strings.Builder, recs []pipeline.RestackRecord) {
	if len(recs) == 0 {
		return
	}
	b.WriteString("#### Restacks\n\n")
	for _, r := range recs {
		fmt.Fprintf(b, "- PR %s: %s", issueRef(r.PR), oneLine(string(r.Action)))
		if r.Base != "" {
			fmt.Fprintf(b, " onto %s", code(r.Base))
		}
		if r.Cycle > 0 {
			fmt.Fprintf(b, " (conflict resolution %d)", r.Cycle)
		}
		if r.Commit != "" {
			c := r.Commit
			if len(c) > 12 {
				c = c[:12]
			}
			fmt.Fprintf(b, " in %s", code(c))
		}
		fmt.Fprintf(b, " at %s", stamp(r.At))
		if r.Reason != "" {
			fmt.Fprintf(b, " — %s", oneLine(Untrusted(r.Reason)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// StageEntryKey is the key of the comment announcing a stage.
func StageEntryKey(workItem int, stage pipeline.Stage) string {
	return Key(strconv.Itoa(workItem), "stage", string(stage), "entry")
}

// StageEntryComment announces that a work item entered a stage
// (ASSERT-PSM-007), under key "<N>/stage/<stage>/entry".
func StageEntryComment(workItem int, stage pipeline.Stage, summary string) string {
	body := fmt.Sprintf("Work item #%d entered stage %s.", workItem, code(string(stage)))
	if s := strings.TrimSpace(summary); s != "" {
		body += "\n\n" + Untrusted(s)
	}
	return Format(Comment{Key: StageEntryKey(workItem, stage), Title: "stage " + string(stage), Body: body})
}

// redactSnapshot returns s with Redact applied to every string inside it
// (map keys included), by way of its JSON form.
func redactSnapshot(s pipeline.Snapshot) (pipeline.Snapshot, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return s, fmt.Errorf("redact snapshot: %w", err)
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // keep integers exact
	if err := dec.Decode(&tree); err != nil {
		return s, fmt.Errorf("redact snapshot: %w", err)
	}
	raw, err = json.Marshal(redactTree(tree))
	if err != nil {
		return s, fmt.Errorf("redact snapshot: %w", err)
	}
	var out pipeline.Snapshot
	if err := json.Unmarshal(raw, &out); err != nil {
		return s, fmt.Errorf("redact snapshot: %w", err)
	}
	return out, nil
}

func redactTree(v any) any {
	switch v := v.(type) {
	case string:
		return Redact(v)
	case []any:
		for i := range v {
			v[i] = redactTree(v[i])
		}
		return v
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[Redact(k)] = redactTree(x)
		}
		return out
	}
	return v
}

func issueRef(n int) string {
	if n == 0 {
		return "—"
	}
	return "#" + strconv.Itoa(n)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown time"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// oneLine renders untrusted s on one line.
func oneLine(s string) string { return Untrusted(strings.Join(strings.Fields(s), " ")) }

// writeGateChange shows, under a gate that paused on an edited issue,
// what changed since the text last approved (the pin). It is the only
// place the change is shown: an edit gets no comment of its own, so that
// whoever can edit the issue cannot make the bot write one per edit.
func writeGateChange(b *strings.Builder, s pipeline.Snapshot) {
	g, pin := s.Gate, s.Pin
	if g == nil || !g.Resume || g.Text == nil || pin == nil || pin.Text == nil || g.Text.SHA256 == pin.Text.SHA256 {
		return
	}
	if pin.Text.Omitted || g.Text.Omitted {
		b.WriteString("The approved text was too long to keep, so no diff is shown; the issue's edit history has it.\n\n")
		return
	}
	old := "# " + pin.Text.Title + "\n\n" + pin.Text.Body
	cur := "# " + g.Text.Title + "\n\n" + g.Text.Body
	b.WriteString("What changed since the approval (title first):\n\n" + TextDiff(old, cur) + "\n\n")
}
