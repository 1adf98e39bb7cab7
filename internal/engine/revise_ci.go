package engine

import (
	"context"
	"errors"
)

// CI feedback (issue 28, point 2) is a revision like review feedback's:
// the same wake_up → revision → exit_waiting edges, lock and status
// record, with a cycle whose feedback is the failing checks of the PR's
// head (stages/revision.CIStep) instead of its review threads.

// CIReviser runs the CI-feedback cycle of a work item's PR.
type CIReviser interface {
	// PendingCI reads, without writing, whether pr's head failed CI and
	// otherwise why not. failedHead, when set, is the head the triggering
	// event reported: a head that moved since asks for nothing. A failure
	// the bot already answered at that head in a comment of its own (an
	// escalation, a report) asks for nothing either, so the cron's sweeps
	// over a PR left red for a maintainer take no lock.
	PendingCI(ctx context.Context, in StageInput, pr int, failedHead string) (bool, string, error)
	// ReviseCI runs one cycle; its tokens go to in.Snapshot's ledger. An
	// infrastructure failure spends no cycle: RevisionRerun when its
	// failed jobs were re-run, RevisionInfrastructure when the PR was
	// told, RevisionIgnored when that was done before.
	ReviseCI(ctx context.Context, in StageInput, pr int, failedHead string) (RevisionOutcome, error)
}

// ReviseCI runs one CI-feedback revision step for ref: nothing when the
// PR's head did not fail CI on the code, else one cycle under the work
// item's lock, recorded in its status comment. failedHead is the head the
// event reported ("" from the cron: the current head).
func ReviseCI(ctx context.Context, d Deps, ref RevisionRef, failedHead string) (Result, error) {
	if d.CIReviser == nil {
		return Result{Issue: ref.Issue}, errors.New("engine: Deps.CIReviser is nil: CI feedback is not wired")
	}
	return reviseWith(ctx, d, ciBound{r: d.CIReviser, head: failedHead}, ref)
}

// ciBound is a CIReviser with the failed head of its event bound, so the
// revision step runs it as a PRReviser.
type ciBound struct {
	r    CIReviser
	head string
}

func (c ciBound) Pending(ctx context.Context, in StageInput, pr int) (bool, string, error) {
	return c.r.PendingCI(ctx, in, pr, c.head)
}

func (c ciBound) Revise(ctx context.Context, in StageInput, pr int) (RevisionOutcome, error) {
	out, err := c.r.ReviseCI(ctx, in, pr, c.head)
	out.CI = true
	return out, err
}
