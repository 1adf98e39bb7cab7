package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
)

// Run repeats the step function until the pipeline waits, finishes, fails,
// backs off or maxSteps steps ran (docs/spec.md §3 --max-steps). It returns every
// step's result; the error is the first step error, which ends the loop.
//
// A run takes the lock once and holds it for all its steps: later steps
// re-read the comments (the snapshot the previous step wrote, and the
// claims, to confirm the lock is still theirs), act, and edit the claim —
// a heartbeat that keeps the lock live. The last step turns the claim into
// the run's record and writes the labels, which releases the lock.
func Run(ctx context.Context, d Deps, ref Ref, maxSteps int) ([]Result, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	if maxSteps < 1 {
		maxSteps = 1
	}
	s := &stepper{d: d, ref: ref}
	o := &observed{}
	var (
		results []Result
		records []string
		held    bool
	)
	for i := 0; i < maxSteps; i++ {
		start := time.Now()
		// The count travels with the context, so that steps running at once
		// on one client (process-all) each report their own requests.
		sctx, requests := github.WithRequestCounter(ctx)
		var (
			res    Result
			record string
			err    error
		)
		if held {
			res, record, held, err = s.next(sctx, o)
		} else if i == 0 {
			res, record, held, err = s.first(sctx, o)
		}
		if record != "" {
			records = append(records, record)
		}
		done := i == maxSteps-1 || err != nil || res.Final() || d.DryRun || ctx.Err() != nil
		if held {
			if done {
				s.release(sctx, o, s.runRecord(records))
				held = false
			} else {
				s.heartbeat(sctx, records)
			}
		}
		res.Issue = ref.Issue
		res.GitHubRequests = requests.Load()
		res.DurationMS = time.Since(start).Milliseconds()
		s.logStep(res, err)
		results = append(results, res)
		if done {
			if err == nil && ctx.Err() != nil {
				err = ctx.Err()
			}
			return results, err
		}
	}
	return results, nil
}

// runRecord renders the comment a run leaves behind: one section per step
// that acted (the stage it entered or worked on, its summary, its audit
// events), under the run's own key. It replaces the run's lock claim.
func (s *stepper) runRecord(sections []string) string {
	if len(sections) == 0 {
		return ""
	}
	title := fmt.Sprintf("run %s · %d step", s.d.RunID, len(sections))
	if len(sections) > 1 {
		title += "s"
	}
	return audit.Format(audit.Comment{Key: audit.Key(fmt.Sprint(s.ref.Issue), "step", s.d.RunID), Title: title,
		Body: strings.Join(sections, "\n\n---\n\n")})
}

// heartbeat edits the claim between two steps of a run: it shows the steps
// so far and keeps the claim live (its age is its last edit). A claim edited
// less than half of lock_timeout ago is left alone: it stays live for at
// least that long, and an edit per step was a tenth of a pipeline's
// requests. The price is that a killed run's records since its last edit
// are lost; they are not state (the snapshot is written by every step). A
// failure is logged: the lock stays ours until the claim is older than
// lock_timeout.
func (s *stepper) heartbeat(ctx context.Context, records []string) {
	if !s.heartbeatDue() {
		return
	}
	body := s.claimBody() + "\n\n" + strings.Join(records, "\n\n---\n\n")
	key := claimKey(s.ref.Issue, s.d.RunID)
	body = s.sealClaim(audit.Redact(audit.Format(audit.Comment{Key: key, Title: "Processing", Body: body})), key, s.d.now())
	c, err := s.d.GitHub.EditComment(ctx, s.ref.Repo, s.claim.CommentID, body)
	if err != nil {
		s.d.logger().Warn("edit lock claim", "issue", s.ref.Issue, "comment", s.claim.CommentID, "error", err)
		return
	}
	if !c.UpdatedAt.IsZero() {
		s.claim.At = c.UpdatedAt
	}
}

// heartbeatDue reports whether the claim is old enough to need an edit to
// stay live until the next step ends: older than half of lock_timeout.
func (s *stepper) heartbeatDue() bool {
	return s.claim.At.IsZero() || s.d.now().Sub(s.claim.At) >= s.policy().Timeout/2
}
