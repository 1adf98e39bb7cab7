package pipeline

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/review"
)

// An executor decides; the engine applies. A stage executor reads the
// snapshot and returns its decisions — the event for the machine and the
// Changes below — and Snapshot.Apply is the one place they are written,
// as policy-bot's evaluators return a result computed from a read-only
// context. The set is closed (Change's method is unexported): a new kind
// of decision is a new type here, reviewed with the snapshot it changes.

// Change is one snapshot change an executor decided.
type Change interface {
	apply(s *Snapshot) error
}

// Apply writes changes to s in order. A change naming a sub-work-item the
// plan does not hold is an error, and the changes after it are not applied.
func (s *Snapshot) Apply(changes ...Change) error {
	for _, c := range changes {
		if c == nil {
			continue
		}
		if err := c.apply(s); err != nil {
			return fmt.Errorf("apply %T to the snapshot of #%d: %w", c, s.WorkItem, err)
		}
	}
	return nil
}

// SetClassification records intake's classification.
type SetClassification struct {
	Classification classify.Classification
}

func (c SetClassification) apply(s *Snapshot) error {
	v := c.Classification
	s.Classification = &v
	return nil
}

// SetSpec records the specification's branch and PR (architecture).
type SetSpec struct {
	Branch string
	PR     int
}

func (c SetSpec) apply(s *Snapshot) error {
	s.Artifacts.SpecBranch, s.Artifacts.SpecPR = c.Branch, c.PR
	return nil
}

// SetInterfaces records interface design's branch, PR (0: none, the
// interfaces already on the base) and interface list (nil when empty).
type SetInterfaces struct {
	Branch string
	PR     int
	Decls  []InterfaceDecl
}

func (c SetInterfaces) apply(s *Snapshot) error {
	s.Artifacts.InterfaceBranch, s.Artifacts.InterfacePR = c.Branch, c.PR
	s.Interfaces = nil
	if len(c.Decls) > 0 {
		s.Interfaces = slices.Clone(c.Decls)
	}
	return nil
}

// SetPlan records planning's sub-work-items, replacing any earlier plan.
type SetPlan struct {
	SubWorkItems []SWI
}

func (c SetPlan) apply(s *Snapshot) error {
	s.SubWorkItems = slices.Clone(c.SubWorkItems)
	return nil
}

// SetScenarioHistory records scenario validation's trajectory outcomes
// (nil when empty).
type SetScenarioHistory struct {
	History map[string][]bool
}

func (c SetScenarioHistory) apply(s *Snapshot) error {
	s.ScenarioHistory = nil
	if len(c.History) > 0 {
		s.ScenarioHistory = c.History
	}
	return nil
}

// SetSWIStatus records a sub-work-item's status (its label is the
// executor's idempotent GitHub write, made before it returns this).
type SetSWIStatus struct {
	ID     string
	Status SWIStatus
}

func (c SetSWIStatus) apply(s *Snapshot) error {
	if !c.Status.Valid() {
		return fmt.Errorf("sub-work-item %q: invalid status %q", c.ID, c.Status)
	}
	return s.updateSWI(c.ID, func(w *SWI) { w.Status = c.Status })
}

// SetSWIPull records the branch and PR of a sub-work-item (integration).
type SetSWIPull struct {
	ID     string
	Branch string
	PR     int
}

func (c SetSWIPull) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) { w.Branch, w.PR = c.Branch, c.PR })
}

// SetSWIFeedback records the feedback pending for a sub-work-item's next
// code generation ("" clears it).
type SetSWIFeedback struct {
	ID       string
	Feedback string
}

func (c SetSWIFeedback) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) { w.Feedback = c.Feedback })
}

// SetSWIRemediation records one more remediation cycle of a sub-work-item
// with the feedback for its next code generation.
type SetSWIRemediation struct {
	ID       string
	Cycles   int
	Feedback string
}

func (c SetSWIRemediation) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) { w.RemediationCycles, w.Feedback = c.Cycles, c.Feedback })
}

// SetSWIFindings records the non-blocking review findings kept for
// integration (nil when none) and clears the pending feedback.
type SetSWIFindings struct {
	ID       string
	Findings []review.Finding
}

func (c SetSWIFindings) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) {
		w.Findings, w.Feedback = nil, ""
		if len(c.Findings) > 0 {
			w.Findings = slices.Clone(c.Findings)
		}
	})
}

// SetSWICommit records code generation's commit of a sub-work-item: its
// branch, the test notes for the PR, the committed paths (sorted, unique;
// nil when none) and no pending feedback.
type SetSWICommit struct {
	ID        string
	Branch    string
	TestNotes []string
	Committed []string
}

func (c SetSWICommit) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) {
		w.Branch, w.Feedback, w.TestNotes = c.Branch, "", c.TestNotes
		w.Committed = CommittedPaths(nil, c.Committed)
	})
}

// SetSWICommitted records the paths committed for a sub-work-item
// (sorted, unique; nil when none), replacing the recorded list.
type SetSWICommitted struct {
	ID        string
	Committed []string
}

func (c SetSWICommitted) apply(s *Snapshot) error {
	return s.updateSWI(c.ID, func(w *SWI) { w.Committed = CommittedPaths(nil, c.Committed) })
}

// CommittedPaths returns recorded and paths together, sorted and unique,
// nil when empty: the form SWI.Committed is kept in.
func CommittedPaths(recorded, paths []string) []string {
	all := append(slices.Clone(recorded), paths...)
	slices.Sort(all)
	if all = slices.Compact(all); len(all) == 0 {
		return nil
	}
	return all
}

func (s *Snapshot) updateSWI(id string, f func(*SWI)) error {
	w := s.SubWorkItem(id)
	if w == nil {
		return fmt.Errorf("sub-work-item %q is not in the plan", id)
	}
	f(w)
	return nil
}

// NextSWI returns the first sub-work-item by Order whose status is pending
// or in-progress and whose dependencies are all completed: a SWI starts
// only when everything it depends on is done (docs/spec.md §5 item 5).
func (s Snapshot) NextSWI() (SWI, bool) {
	recs := slices.Clone(s.SubWorkItems)
	slices.SortStableFunc(recs, func(a, b SWI) int { return cmp.Compare(a.Order, b.Order) })
	status := make(map[string]SWIStatus, len(recs))
	for _, r := range recs {
		status[r.ID] = r.Status
	}
	for _, r := range recs {
		if r.Status != SWIPending && r.Status != SWIInProgress {
			continue
		}
		ready := true
		for _, dep := range r.DependsOn {
			if status[dep] != SWICompleted {
				ready = false
				break
			}
		}
		if ready {
			return r, true
		}
	}
	return SWI{}, false
}

// EnterSWI is the machine entering the per-SWI loop to run stage: code
// generation without a current sub-work-item takes the next ready one.
// It is the only writer of CurrentSWI besides LeaveSWI, and idempotent: a
// current SWI stays current. None ready leaves it "" (code generation then
// reports all_done or escalates the blocked plan).
func (s *Snapshot) EnterSWI(stage Stage) {
	if stage != StageCodeGeneration || s.CurrentSWI != "" {
		return
	}
	if r, ok := s.NextSWI(); ok {
		s.CurrentSWI = r.ID
	}
}

// LeaveSWI is the machine leaving a sub-work-item on ev: next_swi (its PR
// is open, another follows) and all_done clear CurrentSWI.
func (s *Snapshot) LeaveSWI(ev Event) {
	if ev == EventNextSWI || ev == EventAllDone {
		s.CurrentSWI = ""
	}
}

// View returns a deep copy of s for an executor to read: nothing an
// executor does to it reaches s, so its decisions can only leave it as
// Changes. The copy goes through the snapshot's JSON, which round-trips
// exactly (it is how the snapshot is persisted).
func (s Snapshot) View() (*Snapshot, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("copy the snapshot of #%d: %w", s.WorkItem, err)
	}
	var v Snapshot
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("copy the snapshot of #%d: %w", s.WorkItem, err)
	}
	return &v, nil
}
