package pipeline

import (
	"slices"
	"time"
)

// RevisionAction is what a revision cycle of a PR did (stages/revision).
type RevisionAction string

// Revision actions.
const (
	// RevisionIgnored: nothing awaited an answer; nothing was written.
	RevisionIgnored RevisionAction = "ignored"
	// RevisionRevised: one follow-up commit and one reply per thread.
	RevisionRevised RevisionAction = "revised"
	// RevisionEscalated: the cap was reached or the cycle changed
	// nothing; each thread was told why, a maintainer takes over.
	RevisionEscalated RevisionAction = "escalated"
	// RevisionRerun: CI failed on the infrastructure only and the failed
	// jobs of its workflow runs were re-run once; no cycle was spent.
	RevisionRerun RevisionAction = "rerun"
	// RevisionInfrastructure: CI failed on the infrastructure only and
	// nothing could be re-run; the PR was told once. No cycle was spent.
	RevisionInfrastructure RevisionAction = "infrastructure"
)

// RevisionRecord is the last revision cycle of one PR, as the status
// comment shows it.
type RevisionRecord struct {
	PR     int            `json:"pr"`
	Cycle  int            `json:"cycle"`
	Action RevisionAction `json:"action"`
	Commit string         `json:"commit,omitempty"`
	// Threads counts the review threads the cycle answered.
	Threads int       `json:"threads,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at"`
}

// RecordRevision keeps r as its PR's last cycle.
func (s *Snapshot) RecordRevision(r RevisionRecord) {
	s.Revisions = keepPerPR(s.Revisions, r, func(x RevisionRecord) int { return x.PR })
}

// Revision returns the last cycle recorded for pr.
func (s Snapshot) Revision(pr int) (RevisionRecord, bool) {
	return findPerPR(s.Revisions, pr, func(x RevisionRecord) int { return x.PR })
}

// keepPerPR replaces the record of r's pull request in list, or adds r,
// keeping list sorted by pull request: the snapshot holds the last
// revision and the last restack of each PR this way.
func keepPerPR[T any](list []T, r T, prOf func(T) int) []T {
	i := slices.IndexFunc(list, func(x T) bool { return prOf(x) == prOf(r) })
	if i >= 0 {
		list[i] = r
		return list
	}
	list = append(list, r)
	slices.SortFunc(list, func(a, b T) int { return prOf(a) - prOf(b) })
	return list
}

// findPerPR returns the record of pull request pr in list.
func findPerPR[T any](list []T, pr int, prOf func(T) int) (T, bool) {
	i := slices.IndexFunc(list, func(x T) bool { return prOf(x) == pr })
	if i < 0 {
		var zero T
		return zero, false
	}
	return list[i], true
}

// withinRevisionCap: the cycle just recorded is within [revision]
// max_cycles, so it may have committed.
func withinRevisionCap(in GuardInput) bool {
	for _, r := range in.Snapshot.Revisions {
		if r.Action == RevisionRevised && in.MaxRevisionCycles > 0 && r.Cycle > in.MaxRevisionCycles {
			return false
		}
	}
	return true
}

// revisable: a work item with state that is not stopped.
func revisable(in GuardInput) bool {
	return in.Snapshot.Stage != "" && in.Snapshot.Stopped == nil
}
