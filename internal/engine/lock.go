package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
)

// The lock is the cogworks:processing label (for people, and for
// ASSERT-PSM-005: a run that sees it backs off) plus one claim comment per
// run; among live claims the lowest comment id owns the lock. Taking it
// costs three requests: add the label, post the claim, read the comments
// (which also reads the snapshot the step then works on). The claim
// becomes the step's record comment when the step ends, and the final
// label write drops the label, so releasing costs nothing extra. The
// order matters: the claim stops being live before the label goes, so a
// label without a live claim always means "a run is finishing" or "a run
// died", never "free".

// acquire takes the lock. A loser withdraws its claim and makes no other
// write. A write whose response was lost (the process lives on) is found
// again by its key rather than left behind as an orphaned claim.
func (s *stepper) acquire(ctx context.Context, o *wakeFacts) (bool, error) {
	if o.obs.Lock == pipeline.LockStale {
		s.d.logger().Warn("taking over stale lock", "issue", s.ref.Issue, "lock_timeout", s.policy().Timeout.String())
	}
	s.deleteExpiredClaims(ctx)
	addedLabel := false
	if !slices.Contains(o.issue.Labels, pipeline.LabelProcessing) {
		add := []string{pipeline.LabelProcessing}
		if len(o.obs.Labels.Stages) == 0 {
			// A fresh item: create the CogWorks labels with their colours
			// (GitHub would make a label it has never seen grey) and show
			// that it enters intake (ASSERT-PSM-001) in the same request.
			labels := idem.NewLabels(s.d.GitHub, s.ref.Repo, pipeline.LabelSpec)
			if err := labels.EnsureRepoLabels(ctx, parentLabels()...); err != nil {
				return false, err
			}
			add = append(add, pipeline.StageLabel(pipeline.StageIntake))
		}
		// wake_up read the labels just now: the set with add is one PUT.
		got, _, err := idem.SetLabelSet(ctx, s.d.GitHub, s.ref.Repo, s.ref.Issue, o.issue.Labels, append(slices.Clone(o.issue.Labels), add...))
		if err != nil {
			// The label may have landed: take it off again rather than
			// leave a bare label that holds everyone off until it is stale.
			s.dropLabel(ctx)
			return false, fmt.Errorf("take lock: add label %s: %w", pipeline.LabelProcessing, err)
		}
		o.issue.Labels = got
		addedLabel = true
	}
	key := claimKey(s.ref.Issue, s.d.RunID)
	body := s.sealClaim(audit.Format(audit.Comment{Key: key, Title: "Processing", Body: s.claimBody()}), key, s.d.now())
	mine, postErr := s.d.GitHub.CreateComment(ctx, s.ref.Repo, s.ref.Issue, body)
	if err := s.readComments(ctx, o); err != nil {
		// Unlock whatever we know we wrote; a claim whose response was lost
		// expires with the lock timeout.
		if postErr == nil {
			s.claim = pipeline.LockClaim{CommentID: mine.ID, Owner: s.d.RunID, At: mine.CreatedAt}
			s.withdraw(ctx)
		}
		if addedLabel {
			s.dropLabel(ctx)
		}
		return false, fmt.Errorf("confirm lock: %w", errors.Join(postErr, err))
	}
	if postErr != nil {
		found, ok := idem.FindComment(o.comments, s.d.BotLogin, key)
		if !ok {
			if addedLabel && len(s.policy().Live(s.claims, s.d.now())) == 0 {
				s.dropLabel(ctx)
			}
			return false, fmt.Errorf("post lock claim: %w", postErr)
		}
		s.d.logger().Warn("lock claim response lost; found the claim by its key", "issue", s.ref.Issue, "comment", found.ID, "error", postErr)
		mine = found
	}
	s.claim = pipeline.LockClaim{CommentID: mine.ID, Owner: s.d.RunID, At: mine.CreatedAt}
	winner, ok := s.policy().Winner(s.claims, s.d.now())
	if !ok || winner.CommentID != mine.ID {
		s.withdraw(ctx)
		return false, nil
	}
	return true, nil
}

// claimBody is the text of this run's lock claim.
func (s *stepper) claimBody() string {
	return fmt.Sprintf("Run `%s` holds the processing lock. This comment becomes the run's record when it ends; a claim not edited for %s is taken over.", s.d.RunID, s.policy().Timeout)
}

// deleteExpiredClaims removes the bot's claims left by killed runs. They
// are ignored anyway, so this is best effort; a person's comment is never
// deleted, since claims are read from the bot's comments only.
func (s *stepper) deleteExpiredClaims(ctx context.Context) {
	live := s.policy().Live(s.claims, s.d.now())
	for _, c := range s.claims {
		if slices.ContainsFunc(live, func(l pipeline.LockClaim) bool { return l.CommentID == c.CommentID }) {
			continue
		}
		if err := s.d.GitHub.DeleteComment(ctx, s.ref.Repo, c.CommentID); err != nil && !isNotFound(err) {
			s.d.logger().Warn("delete expired lock claim", "issue", s.ref.Issue, "comment", c.CommentID, "error", err)
		}
	}
}

// withdraw deletes our claim after losing the lock race.
func (s *stepper) withdraw(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if err := s.d.GitHub.DeleteComment(ctx, s.ref.Repo, s.claim.CommentID); err != nil && !isNotFound(err) {
		s.d.logger().Warn("withdraw lock claim", "comment", s.claim.CommentID, "error", err)
	}
}

// dropLabel removes the processing label, best effort.
func (s *stepper) dropLabel(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	err := s.d.GitHub.RemoveLabel(ctx, s.ref.Repo, s.ref.Issue, pipeline.LabelProcessing)
	if err != nil && !isNotFound(err) {
		s.d.logger().Error("release lock label", "issue", s.ref.Issue, "error", err)
	}
}

// release ends the lock on every path after it was won: the claim becomes
// the step's record (or is deleted when the step recorded nothing), then
// the labels are written with the processing label gone. It survives
// cancellation so that a cancelled step still unlocks; a write that fails
// falls back to deleting the claim and removing the label.
func (s *stepper) release(ctx context.Context, o *observed, record string) {
	ctx = context.WithoutCancel(ctx)
	log := s.d.logger()
	if record != "" {
		if _, err := s.d.GitHub.EditComment(ctx, s.ref.Repo, s.claim.CommentID, s.sealRecord(audit.Redact(record), s.claim.CommentID)); err != nil {
			log.Error("record the step in the lock claim", "issue", s.ref.Issue, "comment", s.claim.CommentID, "error", err)
			record = ""
		}
	}
	if record == "" {
		if err := s.d.GitHub.DeleteComment(ctx, s.ref.Repo, s.claim.CommentID); err != nil && !isNotFound(err) {
			log.Error("release lock claim", "issue", s.ref.Issue, "comment", s.claim.CommentID, "error", err)
		}
	}
	want := o.labels.want
	if want == nil {
		want = o.issue.Labels
	}
	want = slices.DeleteFunc(slices.Clone(want), func(l string) bool { return l == pipeline.LabelProcessing })
	got, wrote, err := idem.SetLabelSet(ctx, s.d.GitHub, s.ref.Repo, s.ref.Issue, o.issue.Labels, want)
	if !wrote && err == nil {
		return
	}
	// The label write adds events: the next step of the run reads them anew.
	s.issueEvents = nil
	if err != nil {
		log.Error("write labels", "issue", s.ref.Issue, "labels", want, "error", err)
		s.dropLabel(ctx)
		return
	}
	o.issue.Labels = got
}

func isNotFound(err error) bool { return errors.Is(err, github.ErrNotFound) }
