package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// writeState persists the snapshot in the status comment and plans the
// labels that follow from it. The labels are written last, in the one
// label request of release, so that a crash in between is repaired by the
// next run, which trusts the snapshot.
func (s *stepper) writeState(ctx context.Context, o *observed, snap pipeline.Snapshot, warnings, consumed []string) error {
	snap.Lock = &pipeline.LockRecord{Owner: s.d.RunID, Acquired: s.claim.At.UTC()}
	// Above every record too: a snapshot rebuilt after the status comment
	// was lost starts from 0.
	snap.Seq = max(snap.Seq, o.snap.Seq, s.newestRecord) + 1
	snap.Labeled = s.labeledStage(&o.wakeFacts)
	if len(o.labels.repaired) > 0 {
		warnings = append(warnings, "Labels that only CogWorks sets were changed by someone else and were restored from the snapshot: "+strings.Join(o.labels.repaired, ", ")+".")
	}
	if statesig.IsShared(s.d.BotLogin) {
		warnings = append(warnings, sharedIdentityWarning(s.d.BotLogin))
	}
	m, err := s.machine(snap)
	if err != nil {
		return err
	}
	body, err := audit.StatusComment(snap, m, audit.StatusOptions{
		Warnings:          warnings,
		RejectedApprovals: o.obs.Approval.Rejected,
		BudgetTokens:      s.d.Config.Budgets.PipelineMaxTokens,
		BudgetUSD:         s.d.Config.Budgets.PipelineMaxCostUSD,
	})
	if err != nil {
		return fmt.Errorf("render status of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	// Signed as written: upsert's redaction leaves a redacted body alone.
	var at int64 // the status comment's id, once it exists
	if c, ok := idem.FindComment(o.comments, s.d.BotLogin, statusKey(s.ref.Issue)); ok {
		at = c.ID
	}
	body = s.sealState(audit.Redact(body), at)
	c, _, err := upsert(ctx, s, &o.wakeFacts, statusKey(s.ref.Issue), body)
	if err != nil {
		return err
	}
	if at == 0 && snap.Seq > 1 {
		// A status comment created again after it was lost: only a
		// sequence-1 block may go without its place, so bind it now.
		if _, _, err := upsert(ctx, s, &o.wakeFacts, statusKey(s.ref.Issue), s.sealState(body, c.ID)); err != nil {
			return err
		}
	}
	s.wroteSeq = snap.Seq
	s.planLabels(o, snap, consumed)
	return nil
}

// desiredLabels computes the work item's CogWorks labels from the
// snapshot: the labels only CogWorks sets follow it, whoever edited them.
func desiredLabels(snap pipeline.Snapshot) (add, remove []string) {
	stageLabel := pipeline.StageLabel(snap.Stage)
	add = append(add, stageLabel)
	for _, st := range pipeline.AllStages() {
		if l := pipeline.StageLabel(st); l != stageLabel {
			remove = append(remove, l)
		}
	}
	if snap.Gate != nil {
		add = append(add, pipeline.LabelAwaitingReview)
	} else {
		remove = append(remove, pipeline.LabelAwaitingReview)
	}
	switch {
	case snap.Classification != nil && snap.Classification.SafetyAffecting:
		add = append(add, pipeline.LabelSafetyCritical)
	case snap.Classification != nil:
		remove = append(remove, pipeline.LabelSafetyCritical)
	}
	if snap.Stopped != nil {
		// A stop takes cogworks:run off; applying it again resumes.
		remove = append(remove, pipeline.LabelRun)
	}
	return add, remove
}

// planLabels sets the labels release will write: the desired ones added,
// stale and consumed ones (approve, retry) removed, every other label
// kept as read.
func (s *stepper) planLabels(o *observed, snap pipeline.Snapshot, consumed []string) {
	add, remove := desiredLabels(snap)
	if o.cmd.rerun {
		add = append(add, pipeline.LabelRun)
	}
	want := slices.Clone(o.issue.Labels)
	if o.labels.want != nil {
		want = slices.Clone(o.labels.want)
	}
	for _, l := range add {
		if !slices.Contains(want, l) {
			want = append(want, l)
		}
	}
	drop := append(remove, consumed...)
	want = slices.DeleteFunc(want, func(l string) bool { return slices.Contains(drop, l) })
	o.labels.want = want
}

// labelDrift names the differences between the labels and the snapshot:
// after a crash between the snapshot write and the label write, or after
// someone edited labels only CogWorks sets.
func labelDrift(o *wakeFacts) []string {
	if !o.obs.HasSnapshot || o.snap.Stage == "" {
		return nil
	}
	var drift []string
	add, remove := desiredLabels(o.snap)
	for _, l := range add {
		if !slices.Contains(o.issue.Labels, l) {
			drift = append(drift, "re-added `"+l+"`")
		}
	}
	for _, l := range remove {
		if slices.Contains(o.issue.Labels, l) {
			drift = append(drift, "removed `"+l+"`")
		}
	}
	return drift
}

// stepRecord renders one step's section of the run's record: the stage it
// entered or worked on, its summary and its audit events (ASSERT-PSM-007,
// docs/spec.md §14).
func (s *stepper) stepRecord(res Result, entered []pipeline.Stage, swi string, events []audit.Event) string {
	var b strings.Builder
	for _, st := range entered {
		if st.PerSWI() && swi != "" {
			fmt.Fprintf(&b, "Work item #%d entered stage `%s` for sub-work-item `%s`.\n\n", s.ref.Issue, st, audit.Untrusted(swi))
		} else {
			fmt.Fprintf(&b, "Work item #%d entered stage `%s`.\n\n", s.ref.Issue, st)
		}
	}
	fmt.Fprintf(&b, "**%s** · `%s` → %s", res.Stage, res.Action, res.Outcome)
	if swi != "" {
		fmt.Fprintf(&b, " · sub-work-item `%s`", audit.Untrusted(swi))
	}
	if r := strings.TrimSpace(res.Reason); r != "" {
		fmt.Fprintf(&b, ": %s", audit.Untrusted(r))
	}
	if len(events) > 0 {
		fmt.Fprintf(&b, "\n\n<details><summary>audit trail: %d events</summary>\n\n%s\n</details>", len(events), audit.EventsTable(events))
	}
	return b.String()
}

// upsert writes a keyed comment idempotently and keeps o.comments current.
func upsert(ctx context.Context, s *stepper, o *wakeFacts, key, body string) (github.Comment, bool, error) {
	body = audit.Redact(body)
	c, changed, err := idem.UpsertComment(ctx, s.d.GitHub, s.ref.Repo, s.d.BotLogin, idem.KeyedComment{Issue: s.ref.Issue, Key: key, Body: body, Listed: o.comments})
	if err != nil {
		return c, false, err
	}
	if changed {
		replaced := false
		for i := range o.comments {
			if o.comments[i].ID == c.ID {
				o.comments[i], replaced = c, true
			}
		}
		if !replaced {
			o.comments = append(o.comments, c)
		}
	}
	return c, changed, nil
}
