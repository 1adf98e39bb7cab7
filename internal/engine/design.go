package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/pipeline"
)

// An approved specification can change after the plan was made from it
// (issue 28, point 5). Planning's step pins the digests of the design
// files it planned from (Snapshot.Design); every later acting step in a
// per-SWI stage reads them again (DesignWatcher.Design: one contents read
// per file on its branch, and one compare of the default branch since the
// commit last checked) and, when they differ, pauses at a gate that resumes the same
// stage, with the diff in the status comment and the amended text kept
// (Snapshot.Amended). The approval follows the gate rules unchanged: a
// writer's cogworks:approve or /cogworks approve, never CogWorks's own
// label nor an outsider's. The approved step re-plans only while the
// files still read as the pause showed them (else it pauses again on the
// new text, the approval spent): DesignWatcher.Replan files the new and
// changed sub-work-items, tells and closes the obsolete ones and leaves the others,
// and their PRs, untouched.

// DesignWatcher reads the design files a work item's plan was made from
// and re-plans its sub-work-items on an amended design. The stages
// package wires it (stages/planning); nil disables the watch.
type DesignWatcher interface {
	// Design reads the specification and interface files the plan of
	// in.Snapshot is made from, as they read now.
	Design(ctx context.Context, in StageInput) (pipeline.DesignBasis, error)
	// Replan plans against the amended design (in.Snapshot.Amended) and
	// returns the sub-work-item records that follow: unaffected records
	// as they were, changed ones reset to pending, new ones filed as
	// sub-issues, obsolete ones dropped (told on their sub-issue and PR,
	// the sub-issue closed as not planned when the bot opened it).
	// It must be idempotent: a re-run after a crash writes nothing twice.
	Replan(ctx context.Context, in StageInput) (Replanned, error)
}

// Replanned is what a re-plan decided.
type Replanned struct {
	SubWorkItems []pipeline.SWI
	// Added, Changed and Obsolete name the sub-work-items by id; every
	// other record is unaffected.
	Added, Changed, Obsolete []string
}

// reasonAmended is the pause's reason when the design changed.
const reasonAmended = "the specification or interfaces changed after the plan was made from them; a writer must approve the amended design to re-plan: `/cogworks approve` or apply `" + pipeline.LabelApprove + "`"

// reasonAmendedAgain reopens the pause when the design changed again
// between the approval and the step that would have re-planned.
const reasonAmendedAgain = "the specification or interfaces changed again after the approval, which was given for the earlier amendment; a writer must approve the design as it reads now: `/cogworks approve` or apply `" + pipeline.LabelApprove + "`"

// designInput is the StageInput a DesignWatcher reads: a copy of the
// snapshot (its decisions come back as values), with the engine's book of
// the snapshot's ledger for a re-plan's LLM calls.
func (s *stepper) designInput(o *wakeFacts, snap *pipeline.Snapshot) (StageInput, error) {
	view, err := snap.View()
	if err != nil {
		return StageInput{}, err
	}
	return StageInput{Repo: s.ref.Repo, Issue: o.issue, Stage: snap.Stage, Snapshot: view, Config: s.d.Config,
		RunID: s.d.RunID, Logger: s.d.logger().With("stage", "replan"), BotLogin: s.d.BotLogin, Comments: o.comments,
		Ledger: pipeline.NewLedgerBook(snap)}, nil
}

// pinDesign records, after planning ran, the design its plan was made
// from.
func (s *stepper) pinDesign(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, stage pipeline.Stage) error {
	if s.d.Design == nil || stage != pipeline.StagePlanning || len(snap.SubWorkItems) == 0 {
		return nil
	}
	in, err := s.designInput(o, snap)
	if err != nil {
		return err
	}
	b, err := s.d.Design.Design(ctx, in)
	if err != nil {
		return fmt.Errorf("pin the design of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	snap.Design, snap.Amended = &b, nil
	return nil
}

// watchDesign compares the design with the pin before a per-SWI stage
// runs. handled reports that the step did its work here (a pause or a
// re-plan) and the executor must not run.
func (s *stepper) watchDesign(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, v pipeline.Verdict, a *action) (handled bool, err error) {
	if s.d.Design == nil || !snap.Stage.PerSWI() {
		return false, nil
	}
	in, err := s.designInput(o, snap)
	if err != nil {
		return false, err
	}
	now, err := s.d.Design.Design(ctx, in)
	if err != nil {
		return false, fmt.Errorf("read the design of %s#%d: %w", s.ref.Repo, s.ref.Issue, err)
	}
	switch {
	case snap.Design == nil:
		// A snapshot from before 4.4.0: pin what runs from here on.
		snap.Design = &now
		return false, nil
	case snap.Amended != nil && (v.Action == pipeline.ActionPassGate || snap.Gate == nil):
		// Approved now, or approved by a step an outage interrupted
		// before its re-plan was written: only passing the pause's gate
		// clears it with Amended still set.
		if !now.Same(*snap.Amended) {
			if n := len(snap.Approvals); n > 0 {
				snap.Approvals[n-1].Refused = "the design changed again while the gate waited"
			}
			s.pauseAmended(o, snap, a, now, reasonAmendedAgain)
			snap.Gate.Refused = true
			return true, nil
		}
		return true, s.replan(ctx, o, snap, a)
	case now.Same(*snap.Design):
		// Unchanged: the pin keeps its contents and moves on to what was
		// checked now (the default branch's commit, the files found
		// there), so the next check asks only what changed since; the
		// step writes its snapshot anyway, so this costs no write.
		now.At = snap.Design.At
		snap.Design, snap.Amended = &now, nil
		return false, nil
	}
	s.pauseAmended(o, snap, a, now, reasonAmended)
	return true, nil
}

// pauseAmended opens the gate that waits for a writer to approve the
// amended design now.
func (s *stepper) pauseAmended(o *wakeFacts, snap *pipeline.Snapshot, a *action, now pipeline.DesignBasis, reason string) {
	snap.Amended = &now
	s.pause(snap, a, reason, o.issue)
}

// replan follows wake_up → replan → code generation: the approved
// amendment is planned, the records replaced, the pin moved.
func (s *stepper) replan(ctx context.Context, o *wakeFacts, snap *pipeline.Snapshot, a *action) error {
	stage := snap.Stage
	m, err := s.machine(*snap)
	if err != nil {
		return &FailedError{Stage: stage, Reason: err.Error(), Err: err}
	}
	if _, err := m.Fire(pipeline.StateWakeUp, pipeline.EventAmended, s.guardInput(*snap)); err != nil {
		return &FailedError{Stage: stage, Reason: "re-plan: " + err.Error(), Err: err}
	}
	in, err := s.designInput(o, snap)
	if err != nil {
		return err
	}
	out, err := s.d.Design.Replan(ctx, in)
	if err != nil {
		return err
	}
	if _, err := m.Fire(pipeline.StateReplan, pipeline.EventReplanned, s.guardInput(*snap)); err != nil {
		return &FailedError{Stage: stage, Reason: "re-plan: " + err.Error(), Err: err}
	}
	snap.SubWorkItems = out.SubWorkItems
	snap.Design, snap.Amended = snap.Amended, nil
	touched := slices.Concat(out.Added, out.Changed, out.Obsolete)
	if snap.CurrentSWI != "" && slices.Contains(touched, snap.CurrentSWI) || len(out.Added)+len(out.Changed) > 0 && snap.CurrentSWI == "" {
		// The sub-work-item in hand was re-planned: code generation
		// picks the next one to build, the re-planned ones included.
		snap.Stage, snap.CurrentSWI = pipeline.StageCodeGeneration, ""
	}
	summary := fmt.Sprintf("re-planned on the amended design: added %s; changed %s; obsolete %s; the others untouched",
		names(out.Added), names(out.Changed), names(out.Obsolete))
	a.stage, a.res.Stage, a.res.Outcome, a.res.Reason = snap.Stage, string(snap.Stage), OutcomeAdvanced, summary
	a.events.Add(audit.Event{Kind: audit.KindTransition, Stage: string(stage), Summary: summary})
	return nil
}

func names(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
