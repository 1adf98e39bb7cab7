package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

// observed is what wake_up read and decoded.
type observed struct {
	issue    github.Issue
	comments []github.Comment
	snap     pipeline.Snapshot
	obs      pipeline.Observation
}

func statusKey(n int) string            { return audit.StatusKey(n) }
func claimKeyPrefix(n int) string       { return audit.Key(fmt.Sprint(n), "lock") + "/" }
func claimKey(n int, run string) string { return claimKeyPrefix(n) + run }

// wake reads the issue and its comments: two requests, plus label events
// and one permission lookup only when an approval label waits to be
// judged, plus the gate PR when merges are to be checked.
func (s *stepper) wake(ctx context.Context) (*observed, error) {
	issue, err := s.d.GitHub.GetIssue(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		return nil, fmt.Errorf("read issue %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	o := &observed{issue: issue}
	o.obs.Labels = pipeline.ParseLabels(issue.Labels)
	if !o.obs.Labels.Run {
		return o, nil
	}
	if err := s.readComments(ctx, o); err != nil {
		return nil, err
	}
	if o.obs.HasSnapshot && o.snap.Gate != nil {
		if err := s.judgeGate(ctx, o); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// readComments (re)reads the comments and decodes snapshot and lock claims.
func (s *stepper) readComments(ctx context.Context, o *observed) error {
	comments, err := s.d.GitHub.ListComments(ctx, s.ref.Repo, s.ref.Issue)
	if err != nil {
		return fmt.Errorf("read comments of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	o.comments = comments
	o.obs.HasSnapshot = false
	o.snap = pipeline.Snapshot{}
	var claims []pipeline.LockClaim
	prefix := claimKeyPrefix(s.ref.Issue)
	for _, c := range comments {
		key, ok := audit.FindKey(c.Body)
		if !ok {
			continue
		}
		switch {
		case key == statusKey(s.ref.Issue):
			snap, found, err := pipeline.ParseSnapshot(c.Body)
			if err != nil {
				return fmt.Errorf("state snapshot in comment %d of %s#%d: %w", c.ID, s.ref.Repo, s.ref.Issue, err)
			}
			if found {
				o.snap, o.obs.HasSnapshot = snap, true
			}
		case strings.HasPrefix(key, prefix):
			claims = append(claims, pipeline.LockClaim{CommentID: c.ID, Owner: strings.TrimPrefix(key, prefix), At: c.CreatedAt})
		}
	}
	o.obs.Snapshot = o.snap
	o.obs.Lock = s.policy().Evaluate(o.obs.Labels.Processing, claims, s.d.now())
	s.claims = claims
	return nil
}

// judgeGate evaluates a waiting gate: the cogworks:approve label (checked
// against the label event's actor and their permission) or, when asked, a
// merge of the stage's PR by someone with write permission.
func (s *stepper) judgeGate(ctx context.Context, o *observed) error {
	if o.obs.Labels.Approve {
		events, err := s.d.GitHub.ListIssueEvents(ctx, s.ref.Repo, s.ref.Issue)
		if err != nil {
			return fmt.Errorf("read events of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
		}
		var labelEvents []pipeline.LabelEvent
		for _, e := range events {
			if e.Event == "labeled" || e.Event == "unlabeled" {
				labelEvents = append(labelEvents, pipeline.LabelEvent{ID: e.ID, Action: e.Event, Label: e.Label, Actor: e.Actor})
			}
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
		var used []int64
		for _, a := range o.snap.Approvals {
			used = append(used, a.EventID)
		}
		o.obs.Approval = pipeline.EvaluateLabelApproval(true, labelEvents, perms, s.d.BotLogin, used)
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
		o.obs.Approval = pipeline.ApprovalVerdict{Approved: true, By: p.MergedBy, Via: "merge"}
	}
	return nil
}

// gatePR is the PR whose merge passes the waiting gate, if the gated
// stage produced one.
func gatePR(s pipeline.Snapshot) int {
	switch s.Gate.Stage {
	case pipeline.StageArchitecture:
		return s.Artifacts.SpecPR
	case pipeline.StageInterfaceDesign:
		return s.Artifacts.InterfacePR
	}
	return 0
}
