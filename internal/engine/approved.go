package engine

import (
	"context"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/commands"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// What a maintainer approved stays what runs. The snapshot pins the
// sha256 of the issue's title and body (pipeline.IssueDigest) when a
// writer triggers the pipeline (intake) and whenever a gate is approved;
// an acting step that finds the issue changed pauses at a gate that
// resumes the same stage once a writer approves again, which re-pins. A
// fresh item whose cogworks:run was applied by someone without write
// permission (issue forms can auto-label) waits the same way before
// intake, having spent no LLM call ([trust] require_writer_trigger). A
// snapshot without a pin (written before 3.0.0, or rebuilt from labels)
// pins the issue as the next acting step reads it.

// reasonChanged is the pause's reason when the issue was edited.
const reasonChanged = "the issue changed after approval; a writer must re-approve: `/cogworks approve` or re-apply `" + pipeline.LabelApprove + "`"

// reasonChangedAtGate is the reason of a gate reopened because the issue
// changed while it waited: the approval was given for the older text.
const reasonChangedAtGate = "the issue changed while the gate waited, so the approval given for the earlier text does not pass it; a writer must approve again: `/cogworks approve` or re-apply `" + pipeline.LabelApprove + "`"

// holdUnapproved pins the issue or pauses the step before the executor
// runs. held reports a pause: snap then carries the gate and the step
// writes it without executing anything.
//
// An approval binds the text the gate was opened on (GateRecord.Text, else
// the pin the gated stage ran on), not the text as the passing step reads
// it: the author can edit between a writer's approval and that step (up
// to the cron's interval). When the texts differ the gate is reopened on
// the new text, with the diff, and only a later approval passes it.
func (s *stepper) holdUnapproved(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, v pipeline.Verdict, a *action) (held bool, err error) {
	digest := pipeline.IssueDigest(o.issue.Title, o.issue.Body)
	now := s.d.now()
	switch {
	case v.Action == pipeline.ActionPassGate:
		seen := gateText(o.snap)
		if seen != "" && seen != digest {
			if o.issueRead || !s.freshMatches(ctx, o, seen) {
				return true, s.reopenGate(ctx, o, snap, a)
			}
			digest = seen
		}
		// The writer approved the issue as it read when the gate opened,
		// which is how it reads now.
		snap.Pin = &pipeline.IssuePin{SHA256: digest, By: o.obs.Approval.By, At: now, Via: o.obs.Approval.Via,
			Text: pipeline.NewIssueText(o.issue.Title, o.issue.Body)}
		return false, nil
	case snap.Pin == nil && o.obs.HasSnapshot, snap.Pin == nil && snap.Stage != pipeline.StageIntake:
		// A pre-3.0.0 snapshot, or one rebuilt from the bot's labels:
		// pin what runs from here on.
		snap.Pin = &pipeline.IssuePin{SHA256: digest, At: now, Via: pipeline.ViaAdopted, Text: pipeline.NewIssueText(o.issue.Title, o.issue.Body)}
		return false, nil
	case snap.Pin == nil:
		actor, writer, err := s.trigger(ctx)
		if err != nil {
			return false, err
		}
		if writer || !s.d.Config.Trust.RequireWriterTrigger {
			snap.Pin = &pipeline.IssuePin{SHA256: digest, By: actor, At: now, Via: pipeline.ViaTrigger, Text: pipeline.NewIssueText(o.issue.Title, o.issue.Body)}
			return false, nil
		}
		s.pause(snap, a, triggerReason(actor), o.issue)
		return true, nil
	case snap.Pin.SHA256 != digest && !o.issueRead && s.freshMatches(ctx, o, snap.Pin.SHA256):
		// A queued event showed an older text; the issue reads as approved.
		return false, nil
	case snap.Pin.SHA256 != digest:
		// The pause, its reason and the diff show in the status comment
		// (audit's writeGateChange); no comment of its own, since whoever
		// can edit the issue would otherwise make the bot write one per
		// edit (see replyWindow).
		s.pause(snap, a, reasonChanged, o.issue)
		return true, nil
	}
	return false, nil
}

// gateText is the digest of the text the waiting gate of snap was opened
// on: the gate's own record, else the pin the gated stage ran on; "" when
// neither is known (a snapshot written before 3.0.0).
func gateText(snap pipeline.Snapshot) string {
	switch {
	case snap.Gate != nil && snap.Gate.Text != nil:
		return snap.Gate.Text.SHA256
	case snap.Pin != nil:
		return snap.Pin.SHA256
	}
	return ""
}

// reopenGate refuses an approval given for an older text: the gate that
// begin passed is put back, on the text as it reads now, the approval is
// kept as spent (so a label left by a crash cannot pass the new text) and
// a comment shows the change.
func (s *stepper) reopenGate(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, a *action) error {
	gate := *o.snap.Gate
	before := gate.Text
	if before == nil && o.snap.Pin != nil {
		before = o.snap.Pin.Text
	}
	if n := len(snap.Approvals); n > 0 {
		snap.Approvals[n-1].Refused = "the issue changed while the gate waited"
	}
	snap.Stage, snap.CurrentSWI = o.snap.Stage, o.snap.CurrentSWI
	a.stage, a.res.Stage, a.entered = snap.Stage, string(snap.Stage), nil
	s.pause(snap, a, reasonChangedAtGate, o.issue)
	snap.Gate.Stage, snap.Gate.SWI, snap.Gate.Resume, snap.Gate.Refused = gate.Stage, gate.SWI, gate.Resume, true
	digest := snap.Gate.Text.SHA256
	key := audit.Key(fmt.Sprint(s.ref.Issue), "changed", digest[:16])
	body := audit.Format(audit.Comment{Key: key, Title: "the issue changed while the gate waited",
		Body: fmt.Sprintf("The title or description of #%d changed after the gate after `%s` opened, so @%s's approval (via %s), given for the earlier text, does not pass it: what a maintainer approved stays what runs. A writer must approve the text as it reads now: comment `/cogworks approve` or re-apply `%s`.\n\n%s",
			s.ref.Issue, gate.Stage, audit.Untrusted(o.obs.Approval.By), o.obs.Approval.Via, pipeline.LabelApprove, changeSection(before, o.issue))})
	_, _, err := upsert(ctx, s, o, key, body)
	return err
}

// changeSection shows what changed from the approved text to the issue as
// it reads now.
func changeSection(approved *pipeline.IssueText, now github.Issue) string {
	if approved == nil || approved.Omitted {
		return "The approved text was too long to keep, so no diff is shown; the issue's edit history has it."
	}
	old := "# " + approved.Title + "\n\n" + approved.Body
	cur := "# " + now.Title + "\n\n" + now.Body
	return "What changed since the approval (title first):\n\n" + audit.TextDiff(old, cur)
}

// freshMatches re-reads an issue an event payload showed and reports
// whether its text is the pinned one; the executor then gets the fresh
// text. A failed read counts as no match: the step pauses, which a writer
// can lift.
func (s *stepper) freshMatches(ctx context.Context, o *wakeFacts, pin string) bool {
	issue, err := s.d.GitHub.GetIssue(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		s.d.logger().Warn("re-read the issue to compare with the approved text", "issue", s.ref.Issue, "error", err)
		return false
	}
	if pipeline.IssueDigest(issue.Title, issue.Body) != pin {
		return false
	}
	o.issue.Title, o.issue.Body = issue.Title, issue.Body
	return true
}

// pause opens a gate that resumes snap's stage once a writer approves the
// issue as it reads now (issue).
func (s *stepper) pause(snap *pipeline.Snapshot, a *action, reason string, issue github.Issue) {
	snap.Gate = &pipeline.GateRecord{Stage: snap.Stage, SWI: snap.CurrentSWI, Since: s.d.now(), Reason: reason, Resume: true,
		Text: pipeline.NewIssueText(issue.Title, issue.Body)}
	a.res.Outcome, a.res.Reason = OutcomeWaiting, reason
	a.events.Add(audit.Event{Kind: audit.KindGate, Stage: string(snap.Stage), SWI: snap.CurrentSWI, Summary: "paused: " + reason})
}

// maxTriggerActors bounds the permission checks one fresh item costs.
const maxTriggerActors = 3

// trigger decides whether a writer started the pipeline: the actors who
// applied cogworks:run or cogworks:approve since cogworks:run was last
// removed (a writer approves an outsider's trigger by applying either),
// newest first, until one may write (the permission /cogworks commands need). actor is that writer,
// else whoever applied cogworks:run last. The answer is kept for the step.
func (s *stepper) trigger(ctx context.Context) (actor string, writer bool, err error) {
	if s.triggerDone {
		return s.triggerActor, s.triggerWriter, nil
	}
	events, err := s.events(ctx)
	if err != nil {
		return "", false, err
	}
	var runBy string
	var actors []string
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Event == "unlabeled" && e.Label == pipeline.LabelRun && runBy != "" {
			break // an older trigger, since withdrawn, vouches for nothing now
		}
		if e.Event != "labeled" || (e.Label != pipeline.LabelRun && e.Label != pipeline.LabelApprove) {
			continue
		}
		if e.Label == pipeline.LabelRun && runBy == "" {
			runBy = e.Actor
		}
		if e.Actor != "" && e.Actor != s.d.BotLogin && !slices.Contains(actors, e.Actor) {
			actors = append(actors, e.Actor)
		}
	}
	actor = runBy
	for i, a := range actors {
		if i == maxTriggerActors {
			break
		}
		perm, err := s.d.GitHub.CollaboratorPermission(ctx, s.ref.Repo, a)
		if err != nil {
			return "", false, fmt.Errorf("read permission of %s on %s: %w", a, s.ref.Repo, err)
		}
		if pipeline.CanApprove(perm) {
			actor, writer = a, true
			break
		}
	}
	s.triggerDone, s.triggerActor, s.triggerWriter = true, actor, writer
	return actor, writer, nil
}

// untrustedTrigger reports, before the lock is taken, that a fresh item's
// cogworks:run was applied by someone without write permission and no
// writer approved it: the step then writes nothing at all.
func (s *stepper) untrustedTrigger(ctx context.Context, o *wakeFacts, v pipeline.Verdict) (string, bool, error) {
	if !s.d.Config.Trust.RequireWriterTrigger || v.Decision != pipeline.DecisionRun || v.Action != pipeline.ActionExecute ||
		o.obs.HasSnapshot || len(o.obs.Labels.Stages) > 0 {
		return "", false, nil
	}
	actor, writer, err := s.trigger(ctx)
	if err != nil || writer {
		return "", false, err
	}
	approved, err := s.approvedByCommand(ctx, o)
	if err != nil || approved {
		return "", false, err
	}
	return triggerReason(actor), true, nil
}

// approvedByCommand reports a writer's `/cogworks approve` on a fresh item
// held for its trigger: one comment list (the only request an untrusted
// trigger adds per event) and at most maxTriggerActors permission checks.
// The command itself is then handled under the lock like any other.
func (s *stepper) approvedByCommand(ctx context.Context, o *wakeFacts) (bool, error) {
	if o.comments == nil {
		comments, err := s.d.GitHub.ListComments(ctx, s.ref.Repo, s.ref.Issue)
		if err != nil {
			return false, fmt.Errorf("read comments of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
		}
		o.comments = comments
	}
	var checked []string
	for i := len(o.comments) - 1; i >= 0 && len(checked) < maxTriggerActors; i-- {
		c := o.comments[i]
		// The rules of comment commands: a person's comment, never edited.
		if c.User == s.d.BotLogin || !c.UpdatedAt.Equal(c.CreatedAt) || slices.Contains(checked, c.User) ||
			!slices.ContainsFunc(commands.Parse(c.Body), func(cmd commands.Command) bool { return cmd.Name == commands.Approve }) {
			continue
		}
		checked = append(checked, c.User)
		perm, err := s.d.GitHub.CollaboratorPermission(ctx, s.ref.Repo, c.User)
		if err != nil {
			return false, fmt.Errorf("read permission of %s on %s: %w", c.User, s.ref.Repo, err)
		}
		if pipeline.CanApprove(perm) {
			s.triggerActor, s.triggerWriter = c.User, true
			return true, nil
		}
	}
	return false, nil
}

func triggerReason(actor string) string {
	who := "someone"
	if actor != "" {
		who = "@" + actor
	}
	return fmt.Sprintf("`%s` was applied by %s, who cannot write to this repository; nothing runs until a writer applies `%s` (or `%s` again)", pipeline.LabelRun, audit.Untrusted(who), pipeline.LabelApprove, pipeline.LabelRun)
}
