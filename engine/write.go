package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/pipeline"
)

// writeState persists the snapshot in the status comment, then moves the
// labels: labels go last so that a crash in between is repaired by the
// next run, which trusts the snapshot.
func (s *stepper) writeState(ctx context.Context, o *observed, snap pipeline.Snapshot, warnings, consumed []string) error {
	snap.Lock = &pipeline.LockRecord{Owner: s.d.RunID, Acquired: s.claim.At.UTC()}
	body, err := audit.StatusComment(snap, pipeline.PipelineMachine(), audit.StatusOptions{
		Warnings:          warnings,
		RejectedApprovals: o.obs.Approval.Rejected,
		BudgetTokens:      s.d.Config.Budgets.PipelineMaxTokens,
		BudgetUSD:         s.d.Config.Budgets.PipelineMaxCostUSD,
	})
	if err != nil {
		return fmt.Errorf("render status of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	if _, _, err := upsert(ctx, s, o, statusKey(s.ref.Issue), body); err != nil {
		return err
	}
	return s.writeLabels(ctx, o, snap, consumed)
}

// desiredLabels computes the work item's CogWorks labels from the snapshot.
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
	if snap.Classification != nil && snap.Classification.SafetyAffecting {
		add = append(add, pipeline.LabelSafetyCritical)
	}
	return add, remove
}

// writeLabels adds the desired labels before removing stale ones, so the
// issue never shows no stage at all. consumed labels (approve, retry) are
// removed too.
func (s *stepper) writeLabels(ctx context.Context, o *observed, snap pipeline.Snapshot, consumed []string) error {
	add, remove := desiredLabels(snap)
	current := o.issue.Labels
	for _, l := range add {
		if _, err := s.labels.Ensure(ctx, s.ref.Issue, current, l); err != nil {
			return err
		}
		if !slices.Contains(current, l) {
			current = append(current, l)
		}
	}
	for _, l := range append(remove, consumed...) {
		if _, err := s.labels.EnsureAbsent(ctx, s.ref.Issue, current, l); err != nil {
			return err
		}
		current = slices.DeleteFunc(current, func(x string) bool { return x == l })
	}
	o.issue.Labels = current
	return nil
}

// labelsDrift reports whether the labels disagree with the snapshot, which
// happens after a crash between the snapshot write and the label moves.
func (s *stepper) labelsDrift(o *observed) bool {
	if !o.obs.HasSnapshot || o.snap.Stage == "" {
		return false
	}
	add, remove := desiredLabels(o.snap)
	for _, l := range add {
		if !slices.Contains(o.issue.Labels, l) {
			return true
		}
	}
	for _, l := range remove {
		if slices.Contains(o.issue.Labels, l) {
			return true
		}
	}
	return false
}

// postEntry posts the stage-entry status comment (ASSERT-PSM-007).
func (s *stepper) postEntry(ctx context.Context, o *observed, snap pipeline.Snapshot, stage pipeline.Stage, summary string) error {
	key, body := audit.StageEntryKey(s.ref.Issue, stage), audit.StageEntryComment(s.ref.Issue, stage, summary)
	if stage.PerSWI() && snap.CurrentSWI != "" {
		// Per-SWI stages are entered once per sub-work-item: one comment each.
		key = audit.Key(fmt.Sprint(s.ref.Issue), "stage", string(stage), snap.CurrentSWI, "entry")
		body = audit.Format(audit.Comment{Key: key, Title: fmt.Sprintf("stage %s · %s", stage, snap.CurrentSWI),
			Body: fmt.Sprintf("Work item #%d entered stage `%s` for sub-work-item `%s`.\n\n%s", s.ref.Issue, stage, snap.CurrentSWI, summary)})
	}
	_, _, err := upsert(ctx, s, o, key, body)
	return err
}

// upsert writes a keyed comment idempotently and keeps o.comments current.
func upsert(ctx context.Context, s *stepper, o *observed, key, body string) (github.Comment, bool, error) {
	body = audit.Redact(body)
	c, changed, err := idem.UpsertComment(ctx, s.d.GitHub, s.ref.Repo, s.ref.Issue, o.comments, key, body)
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
