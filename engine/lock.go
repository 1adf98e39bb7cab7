package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

// acquire takes the lock: apply cogworks:processing, post this run's claim
// comment, re-read the comments and check that our claim is the oldest
// live one. A loser withdraws its claim and makes no other write.
func (s *stepper) acquire(ctx context.Context, o *observed) (bool, error) {
	if o.obs.Lock == pipeline.LockStale {
		s.d.logger().Warn("taking over stale lock", "issue", s.ref.Issue, "lock_timeout", s.policy().Timeout.String())
	}
	// Expired claims are left by killed runs (or a failed release); they
	// are ignored anyway, so removing them is best effort.
	live := s.policy().Live(s.claims, s.d.now())
	for _, c := range s.claims {
		if !slices.ContainsFunc(live, func(l pipeline.LockClaim) bool { return l.CommentID == c.CommentID }) {
			_ = s.d.GitHub.DeleteComment(ctx, s.ref.Repo, c.CommentID)
		}
	}
	if _, err := s.labels.Ensure(ctx, s.ref.Issue, o.issue.Labels, pipeline.LabelProcessing); err != nil {
		return false, fmt.Errorf("take lock: %w", err)
	}
	if !slices.Contains(o.issue.Labels, pipeline.LabelProcessing) {
		o.issue.Labels = append(o.issue.Labels, pipeline.LabelProcessing)
	}
	body := audit.Format(audit.Comment{
		Key:   claimKey(s.ref.Issue, s.d.RunID),
		Title: "Processing",
		Body:  fmt.Sprintf("Run `%s` holds the processing lock. It is released when the step ends; a lock older than %s is taken over.", s.d.RunID, s.policy().Timeout),
	})
	mine, err := s.d.GitHub.CreateComment(ctx, s.ref.Repo, s.ref.Issue, body)
	if err != nil {
		// No claim exists: leave the label to the stale-lock rule rather
		// than strip a label another run may rely on.
		return false, fmt.Errorf("post lock claim: %w", err)
	}
	s.claim = pipeline.LockClaim{CommentID: mine.ID, Owner: s.d.RunID, At: mine.CreatedAt}
	if err := s.readComments(ctx, o); err != nil {
		s.withdraw(ctx)
		return false, fmt.Errorf("confirm lock: %w", err)
	}
	winner, ok := s.policy().Winner(s.claims, s.d.now())
	if !ok || winner.CommentID != mine.ID {
		s.withdraw(ctx)
		return false, nil
	}
	return true, nil
}

// withdraw deletes our claim after losing the lock race.
func (s *stepper) withdraw(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	if err := s.d.GitHub.DeleteComment(ctx, s.ref.Repo, s.claim.CommentID); err != nil {
		s.d.logger().Warn("withdraw lock claim", "comment", s.claim.CommentID, "error", err)
	}
}

// release runs on every path after the lock was won. It uses a context
// that survives cancellation so that a cancelled step still unlocks.
func (s *stepper) release(ctx context.Context) {
	ctx = context.WithoutCancel(ctx)
	log := s.d.logger()
	if err := s.d.GitHub.RemoveLabel(ctx, s.ref.Repo, s.ref.Issue, pipeline.LabelProcessing); err != nil && !isNotFound(err) {
		log.Error("release lock label", "issue", s.ref.Issue, "error", err)
	}
	if err := s.d.GitHub.DeleteComment(ctx, s.ref.Repo, s.claim.CommentID); err != nil && !isNotFound(err) {
		log.Error("release lock claim", "issue", s.ref.Issue, "comment", s.claim.CommentID, "error", err)
	}
}

func isNotFound(err error) bool { return errors.Is(err, github.ErrNotFound) }
