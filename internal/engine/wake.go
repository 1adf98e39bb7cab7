package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// observed is what wake_up read and decoded.
//
// Each phase owns a part: wake-up reads wakeFacts, the label round plans
// labelPlan, the command scan fills cmd. A function takes only the part it
// reads or writes.
type observed struct {
	wakeFacts
	labels labelPlan
	// cmd holds the comment commands the step found and handled.
	cmd commandState
}

// wakeFacts is what wake-up (and the lock round, which reads the comments
// again) learned about the issue.
type wakeFacts struct {
	issue github.Issue
	// issueRead reports that issue was read in this step rather than taken
	// from Ref.Known.
	issueRead bool
	// comments is nil until the comment list was read in this step.
	comments []github.Comment
	snap     pipeline.Snapshot
	obs      pipeline.Observation
	// judged reports that the waiting gate was evaluated.
	judged bool
	// rollback says why the snapshot read is not the newest CogWorks
	// wrote ("" when nothing says so); such a snapshot is never acted on.
	rollback string
}

// labelPlan is what the step decided about the issue's labels.
type labelPlan struct {
	// repaired names label changes that undo someone else's edits of the
	// labels only CogWorks sets; the status comment shows them.
	repaired []string
	// want is the label set release writes; nil while the step plans no
	// label change.
	want []string
}

func statusKey(n int) string            { return audit.StatusKey(n) }
func claimKeyPrefix(n int) string       { return audit.Key(fmt.Sprint(n), "lock") + "/" }
func claimKey(n int, run string) string { return claimKeyPrefix(n) + run }

// wake reads as little as the decision needs. The labels come from the
// event payload when there is one (no request) or from the issue; the
// comments (snapshot and lock claims) are read here only when the labels
// show a lock, a gate, an approval or an end, because on the run path the
// lock round reads them anyway. A waiting gate thus costs one request and
// an untriggered event none.
func (s *stepper) wake(ctx context.Context, o *observed) error {
	if s.ref.Known != nil {
		o.issue = *s.ref.Known
		o.issue.Labels = slices.Clone(o.issue.Labels)
	} else if err := s.readIssue(ctx, &o.wakeFacts); err != nil {
		return err
	}
	o.obs.Labels = pipeline.ParseLabels(o.issue.Labels)
	if !o.obs.Labels.Run {
		if !s.ref.CommentEvent {
			return nil
		}
		// A command may be for a stopped pipeline, whose stop removed
		// the label.
		if err := s.readComments(ctx, &o.wakeFacts); err != nil {
			return err
		}
		return s.scanCommands(ctx, &o.wakeFacts, &o.cmd)
	}
	if o.obs.Labels.Processing && !o.issueRead {
		// A queued event may show a lock released long ago.
		if err := s.readIssue(ctx, &o.wakeFacts); err != nil {
			return err
		}
		o.obs.Labels = pipeline.ParseLabels(o.issue.Labels)
	}
	l := o.obs.Labels
	if !l.Processing && !l.AwaitingReview && !l.Approve && !l.Retry && !endLabel(l) {
		return nil // the run path: the lock round reads the comments
	}
	if err := s.readComments(ctx, &o.wakeFacts); err != nil {
		return err
	}
	if o.rollback != "" {
		return nil // refused under the lock (act); nothing else is judged on it
	}
	if o.obs.Lock == pipeline.LockFresh && len(s.policy().Live(s.claims, s.d.now())) == 0 {
		// A bare label: its age decides.
		at, err := s.processingLabelAt(ctx)
		if err != nil {
			return err
		}
		o.obs.Lock = s.policy().Evaluate(true, at, nil, s.d.now())
	}
	if o.obs.Lock != pipeline.LockFresh && o.obs.HasSnapshot && o.snap.Gate != nil {
		if err := s.judgeGate(ctx, &o.wakeFacts); err != nil {
			return err
		}
	}
	if o.obs.Lock != pipeline.LockFresh && o.obs.HasSnapshot && o.snap.Gate == nil && l.Approve && len(o.snap.Approvals) > 0 {
		if err := s.spentApproval(ctx, &o.wakeFacts); err != nil {
			return err
		}
	}
	if o.obs.Lock != pipeline.LockFresh {
		return s.scanCommands(ctx, &o.wakeFacts, &o.cmd)
	}
	return nil
}

// endLabel reports a complete or failed stage label.
func endLabel(l pipeline.LabelSet) bool {
	return slices.Contains(l.Stages, pipeline.StageComplete) || slices.Contains(l.Stages, pipeline.StageFailed)
}

func (s *stepper) readIssue(ctx context.Context, o *wakeFacts) error {
	issue, err := s.d.GitHub.GetIssue(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		return fmt.Errorf("read issue %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	o.issue, o.issueRead = issue, true
	return nil
}

// readComments (re)reads the comments and decodes the snapshot and lock
// claims from the bot's own comments only: anyone who can comment can
// copy a marker or a state block, and none of that is state. The bot's
// first status comment wins.
func (s *stepper) readComments(ctx context.Context, o *wakeFacts) error {
	comments, err := s.d.GitHub.ListComments(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		return fmt.Errorf("read comments of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	if comments == nil {
		comments = []github.Comment{}
	}
	o.comments = comments
	o.obs.HasSnapshot = false
	o.snap = pipeline.Snapshot{}
	o.rollback = ""
	var claims []pipeline.LockClaim
	var newestRecord int64
	prefix := claimKeyPrefix(s.ref.Issue)
	records := audit.Key(fmt.Sprint(s.ref.Issue), "step") + "/"
	for _, c := range comments {
		if c.User != s.d.BotLogin {
			continue
		}
		key, ok := audit.FindKey(c.Body)
		if !ok {
			continue
		}
		switch {
		case key == statusKey(s.ref.Issue) && !o.obs.HasSnapshot:
			if block, ok := pipeline.SnapshotBlock(c.Body); ok && !s.trustedState(c, block) {
				continue
			}
			snap, found, err := pipeline.ParseSnapshot(c.Body)
			if err != nil {
				return fmt.Errorf("state snapshot in comment %d of %s#%d: %w", c.ID, s.ref.Repo, s.ref.Issue, err)
			}
			if found {
				o.snap, o.obs.HasSnapshot = snap, true
			}
		case strings.HasPrefix(key, prefix):
			// A run that holds the lock over several steps edits its claim
			// after each one: the last edit is its heartbeat.
			at := c.UpdatedAt
			if at.IsZero() {
				at = c.CreatedAt
			}
			if !s.trustedClaim(c, key, at) {
				continue
			}
			claims = append(claims, pipeline.LockClaim{CommentID: c.ID, Owner: strings.TrimPrefix(key, prefix), At: at})
		case strings.HasPrefix(key, records):
			newestRecord = max(newestRecord, s.recordSeq(c))
		}
	}
	s.newestRecord = newestRecord
	if o.obs.HasSnapshot {
		why, err := s.rolledBack(ctx, o, newestRecord)
		if err != nil {
			return err
		}
		o.rollback = why
	}
	o.obs.Snapshot = o.snap
	// A present label counts as fresh until its age is known (wake reads
	// it only when no claim is live).
	o.obs.Lock = s.policy().Evaluate(o.obs.Labels.Processing, s.d.now(), claims, s.d.now())
	s.claims = claims
	return nil
}

// processingLabelAt returns when the processing label was last applied
// (zero when no event says so), from the issue's events.
func (s *stepper) processingLabelAt(ctx context.Context) (time.Time, error) {
	events, err := s.events(ctx)
	if err != nil {
		return time.Time{}, err
	}
	var at time.Time
	for _, e := range events {
		if e.Event == "labeled" && e.Label == pipeline.LabelProcessing && e.CreatedAt.After(at) {
			at = e.CreatedAt
		}
	}
	return at, nil
}

// events reads the issue's events once per step.
func (s *stepper) events(ctx context.Context) ([]github.IssueEvent, error) {
	if s.issueEvents != nil {
		return s.issueEvents, nil
	}
	events, err := s.d.GitHub.ListIssueEvents(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		return nil, fmt.Errorf("read events of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	if events == nil {
		events = []github.IssueEvent{}
	}
	s.issueEvents = events
	return events, nil
}

// spentApproval marks an approval label that passed an earlier gate as
// stale when no gate waits: a run that passed the gate removes the label
// only when it releases, so a run killed before that leaves it behind, and
// the repair must still take it off.
func (s *stepper) spentApproval(ctx context.Context, w *wakeFacts) error {
	labelEvents, err := s.labelEvents(ctx)
	if err != nil {
		return err
	}
	if v := pipeline.EvaluateLabelApproval(true, labelEvents, nil, s.d.BotLogin, usedApprovals(&w.snap)); v.Stale {
		w.obs.Approval = v
	}
	return nil
}

// labelEvents returns the issue's label events (the run reads its events
// once), as the approval rules take them.
func (s *stepper) labelEvents(ctx context.Context) ([]pipeline.LabelEvent, error) {
	events, err := s.events(ctx)
	if err != nil {
		return nil, err
	}
	var out []pipeline.LabelEvent
	for _, e := range events {
		if e.Event == "labeled" || e.Event == "unlabeled" {
			out = append(out, pipeline.LabelEvent{ID: e.ID, Action: e.Event, Label: e.Label, Actor: e.Actor})
		}
	}
	return out, nil
}

// usedApprovals are the label events that already passed a gate: one
// application of cogworks:approve passes one gate only.
func usedApprovals(snap *pipeline.Snapshot) []int64 {
	used := make([]int64, 0, len(snap.Approvals))
	for _, a := range snap.Approvals {
		used = append(used, a.EventID)
	}
	return used
}

// judgeGate evaluates a waiting gate: the cogworks:approve label (checked
// against the label event's actor and their permission) or, when asked, a
// merge of the stage's PR by someone with write permission.
func (s *stepper) judgeGate(ctx context.Context, o *wakeFacts) error {
	o.judged = true
	if o.obs.Labels.Approve {
		labelEvents, err := s.labelEvents(ctx)
		if err != nil {
			return err
		}
		perms := map[string]string{}
		for _, actor := range pipeline.ApprovalActors(labelEvents) {
			if actor == s.d.BotLogin {
				continue
			}
			p, err := s.d.GitHub.CollaboratorPermission(ctx, s.ref.Repo, actor)
			if err != nil {
				return fmt.Errorf("read permission of %s on %s: %w", actor, s.ref.Repo, err)
			}
			perms[actor] = p
		}
		o.obs.Approval = pipeline.EvaluateLabelApproval(true, labelEvents, perms, s.d.BotLogin, usedApprovals(&o.snap))
		if o.obs.Approval.Approved {
			return nil
		}
	}
	if !s.ref.CheckMerges {
		return nil
	}
	pr := gatePR(o.snap)
	if pr == 0 {
		return nil
	}
	p, err := s.d.GitHub.GetPull(ctx, s.ref.Repo, pr)
	if err != nil {
		return fmt.Errorf("read gate PR #%d of %s: %w", pr, s.ref.Repo, err)
	}
	if !p.Merged || p.MergedBy == "" || p.MergedBy == s.d.BotLogin {
		return nil
	}
	perm, err := s.d.GitHub.CollaboratorPermission(ctx, s.ref.Repo, p.MergedBy)
	if err != nil {
		return fmt.Errorf("read permission of %s on %s: %w", p.MergedBy, s.ref.Repo, err)
	}
	if pipeline.CanApprove(perm) {
		o.obs.Approval = pipeline.ApprovalVerdict{Approved: true, By: p.MergedBy, Via: pipeline.ViaMerge}
	}
	return nil
}

// gatePR is the PR whose merge passes the waiting gate, if the gated
// stage produced one.
func gatePR(s pipeline.Snapshot) int {
	if s.Gate.Resume || s.Gate.Refused {
		// A pause is lifted by a writer's approval, never by a merge; a
		// gate reopened after an edit, by an approval given after it, not
		// by the merge that came before.
		return 0
	}
	switch s.Gate.Stage {
	case pipeline.StageArchitecture:
		return s.Artifacts.SpecPR
	case pipeline.StageInterfaceDesign:
		return s.Artifacts.InterfacePR
	}
	return 0
}

// trustedStages returns the stage labels the bot itself applied last,
// from the issue's events. It rebuilds a lost snapshot: a stage label a
// person applied (triage permission suffices) must not move the pipeline.
func (s *stepper) trustedStages(ctx context.Context, labels pipeline.LabelSet) ([]pipeline.Stage, error) {
	if len(labels.Stages) == 0 {
		return nil, nil
	}
	events, err := s.events(ctx)
	if err != nil {
		return nil, err
	}
	lastActor := map[string]string{}
	for _, e := range events {
		if e.Event == "labeled" {
			lastActor[e.Label] = e.Actor
		}
	}
	var out []pipeline.Stage
	for _, st := range labels.Stages {
		if lastActor[pipeline.StageLabel(st)] == s.d.BotLogin {
			out = append(out, st)
		}
	}
	return out, nil
}
