package pipeline

import "time"

// RestackAction is what a restack did to one PR of a work item's stack
// (stages/restack).
type RestackAction string

// Restack actions.
const (
	// RestackRetargeted: the PR's base was merged; it now targets Base
	// (and got Base merged in when it lacked commits of it).
	RestackRetargeted RestackAction = "retargeted"
	// RestackUpdated: its base was merged into the branch (update-branch).
	RestackUpdated RestackAction = "updated"
	// RestackResolved: its base conflicted; a revision whose feedback was
	// the conflict resolved it in the merge commit Commit.
	RestackResolved RestackAction = "resolved"
	// RestackConflict: its base conflicts and the branch is as it was
	// (no resolver wired, or the branch moved during the resolution).
	RestackConflict RestackAction = "conflict"
	// RestackEscalated: the conflict was not resolved (the cap, or files
	// the revision left unresolved); a maintainer takes it.
	RestackEscalated RestackAction = "escalated"
)

// RestackRecord is the last restack of one PR, as the status comment
// shows it (4.5.0).
type RestackRecord struct {
	PR     int           `json:"pr"`
	Action RestackAction `json:"action"`
	// Base is the new base of a retargeted PR.
	Base   string `json:"base,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Cycle numbers a conflict resolution of the PR (1-based).
	Cycle  int       `json:"cycle,omitempty"`
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
}

// RecordRestack keeps r as its PR's last restack.
func (s *Snapshot) RecordRestack(r RestackRecord) {
	s.Restacks = keepPerPR(s.Restacks, r, func(x RestackRecord) int { return x.PR })
}

// Restack returns the last restack recorded for pr.
func (s Snapshot) Restack(pr int) (RestackRecord, bool) {
	return findPerPR(s.Restacks, pr, func(x RestackRecord) int { return x.PR })
}
