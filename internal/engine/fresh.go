package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// A state block's MAC proves that CogWorks wrote it, not that it is the
// newest one: an older version of the status comment (its edit history
// is public) restored by anyone who can edit it — every workflow under
// the shared github-actions[bot] login, a writer — verifies too. So each
// block carries a sequence number (Snapshot.Seq, one more per write) and
// is bound to its comment (the MAC covers the comment's id from the
// second write on), and freshness is anchored in two records an edit of
// the status comment cannot rewind:
//
//   - the stage label CogWorks last applied, from GitHub's append-only
//     issue events: it must be the block's stage, or the stage the block
//     records as labelled when it was written (Snapshot.Labeled: a crash
//     between the state write and the label write leaves the older one);
//   - the sequence number each run's record comment carries, signed and
//     bound to that comment: a block older than the newest record is
//     refused.
//
// A refused block is never acted on: the step pauses with a warning
// comment, keeps the labels (the item keeps its real state) and waits
// for a person to restore the newest version of the status comment.

// macKindRecord signs the sequence number a run's record carries.
const macKindRecord = "record"

// seqOpen prefixes the signed sequence number of a run's record.
const seqOpen = "<!-- cogworks:wrote-seq "

var seqPattern = regexp.MustCompile(`<!-- cogworks:wrote-seq (\d+) -->`)

// trustedState decides whether the state block of c is the bot's and in
// its place (statesig.VerifyState): bound to c's id, or written before the
// id was known (the create write, sequence 1, and blocks of builds before
// 4.2.0, sequence 0).
func (s *stepper) trustedState(c github.Comment, block string) bool {
	var seq int64
	if snap, _, err := pipeline.ParseSnapshot(block); err == nil {
		seq = snap.Seq
	}
	return s.accept(c, macKindState, s.d.StateKey.VerifyState(s.scope(macKindState), c.ID, seq, c.Body, block))
}

// sealRecord appends the signed number of the last state block this run
// wrote to its record comment (claim is the comment it replaces).
func (s *stepper) sealRecord(record string, claim int64) string {
	if len(s.d.StateKey) == 0 || s.wroteSeq == 0 {
		return record
	}
	n := strconv.FormatInt(s.wroteSeq, 10)
	scope := s.scope(macKindRecord)
	scope.Comment = claim
	return strings.TrimRight(record, "\n") + "\n" + seqOpen + n + " -->\n" + s.d.StateKey.Marker(scope, n) + "\n"
}

// recordSeq returns the signed sequence number of a run's record comment,
// 0 when it carries none that verifies.
func (s *stepper) recordSeq(c github.Comment) int64 {
	all := seqPattern.FindAllStringSubmatch(c.Body, -1)
	if len(all) == 0 || len(s.d.StateKey) == 0 {
		return 0
	}
	m := all[len(all)-1] // sealRecord appends it last

	scope := s.scope(macKindRecord)
	scope.Comment = c.ID
	if s.d.StateKey.Verify(scope, c.Body, m[1]) != statesig.Valid {
		s.d.logger().Warn("ignoring a run record whose sequence number does not verify", "issue", s.ref.Issue, "comment", c.ID)
		return 0
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// rolledBack reports why the snapshot o read is not the newest CogWorks
// wrote, or "" when nothing says so. It reads the issue's events only
// when the labels do not show the block's stage.
func (s *stepper) rolledBack(ctx context.Context, o *wakeFacts, newestRecord int64) (string, error) {
	snap := o.snap
	if snap.Seq < newestRecord {
		return fmt.Sprintf("the state block is number %d, but a run of CogWorks recorded writing number %d", snap.Seq, newestRecord), nil
	}
	if slices.Contains(pipeline.ParseLabels(o.issue.Labels).Stages, snap.Stage) {
		return "", nil
	}
	last, err := s.lastBotStage(ctx)
	if err != nil {
		return "", err
	}
	if last == "" || last == snap.Stage || last == snap.Labeled {
		return "", nil
	}
	return fmt.Sprintf("the state block is at stage `%s`, but the stage label CogWorks last applied is `%s`", snap.Stage, pipeline.StageLabel(last)), nil
}

// lastBotStage returns the stage whose label the bot applied last, from
// the issue's events ("" when it applied none).
func (s *stepper) lastBotStage(ctx context.Context) (pipeline.Stage, error) {
	events, err := s.events(ctx)
	if err != nil {
		return "", err
	}
	return lastStageLabeledBy(events, s.d.BotLogin), nil
}

// lastStageLabeledBy returns the stage whose label actor applied last in
// events ("" when none).
func lastStageLabeledBy(events []github.IssueEvent, actor string) pipeline.Stage {
	stages := map[string]pipeline.Stage{}
	for _, st := range pipeline.AllStages() {
		stages[pipeline.StageLabel(st)] = st
	}
	var last pipeline.Stage
	for _, e := range events {
		if st, ok := stages[e.Label]; ok && e.Event == "labeled" && e.Actor == actor {
			last = st
		}
	}
	return last
}

// labeledStage is the stage label CogWorks last applied, as a block about
// to be written records it (Snapshot.Labeled).
func (s *stepper) labeledStage(o *wakeFacts) pipeline.Stage {
	// The events, when this step read them (no request here), say it;
	// otherwise the labels as read do.
	if last := lastStageLabeledBy(s.issueEvents, s.d.BotLogin); last != "" {
		return last
	}
	stages := pipeline.ParseLabels(o.issue.Labels).Stages
	if o.obs.HasSnapshot {
		if slices.Contains(stages, o.snap.Stage) {
			return o.snap.Stage
		}
		return o.snap.Labeled
	}
	return mostAdvanced(stages)
}

// refuseRolledBack is the step on a refused block: nothing acts, the
// labels stay as they are, and one comment per refused block says what a
// person should do.
func (s *stepper) refuseRolledBack(ctx context.Context, o *wakeFacts) (Result, string, error) {
	reason := "the state in the status comment is older than the state CogWorks last wrote (" + o.rollback + "); nothing runs until the newest one is restored"
	s.d.logger().Warn("refusing a restored older state block", "issue", s.ref.Issue, "seq", o.snap.Seq, "stage", o.snap.Stage, "why", o.rollback)
	res := Result{Stage: string(o.snap.Stage), Action: ActionRefuseState, Outcome: OutcomeWaiting, Reason: reason}
	key := audit.Key(fmt.Sprint(s.ref.Issue), "rolled-back", strconv.FormatInt(o.snap.Seq, 10), string(o.snap.Stage))
	body := audit.Format(audit.Comment{Key: key, Title: "⚠️ the status comment was rolled back",
		Body: fmt.Sprintf("The status comment of #%d holds a state block CogWorks signed earlier: %s. Someone who can edit that comment restored an older version of it (its edit history shows who and when). CogWorks does not act on it, so the item keeps its real state: its labels are unchanged, no stage runs again and the cost so far is not reset.\n\nTo go on, restore the status comment to the version it had just before that edit (its edit history lists every version; this warning's own banner on it is not one of them); CogWorks then resumes by itself.", s.ref.Issue, o.rollback)})
	if _, _, err := upsert(ctx, s, o, key, body); err != nil {
		return res, "", asTransient(err)
	}
	// The status comment says so too. Its block and MAC stay as they are
	// (the MAC covers the block only), so the banner ratifies nothing: the
	// next step refuses the block again, and restoring the newest version
	// removes the banner.
	if c, ok := idem.FindComment(o.comments, s.d.BotLogin, statusKey(s.ref.Issue)); ok {
		if banner := withBanner(c.Body, rolledBackBanner); banner != c.Body {
			if _, _, err := upsert(ctx, s, o, statusKey(s.ref.Issue), banner); err != nil {
				return res, "", asTransient(err)
			}
		}
	}
	return res, s.stepRecord(res, nil, o.snap.CurrentSWI, nil), nil
}

// rolledBackBanner heads a status comment whose state was refused.
const rolledBackBanner = "> ⚠️ **CogWorks does not act on the state below**: it is older than the state CogWorks last wrote (an earlier version of this comment was restored). Restore the version it had just before that edit, from this comment's edit history."

// withBanner puts banner after the first paragraph of body (the title),
// once.
func withBanner(body, banner string) string {
	if strings.Contains(body, banner) {
		return body
	}
	i := strings.Index(body, "\n\n")
	if i < 0 {
		return banner + "\n\n" + body
	}
	return body[:i+2] + banner + "\n\n" + body[i+2:]
}
