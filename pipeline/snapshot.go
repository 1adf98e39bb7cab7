package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/planner"
	"github.com/cogworks/cogworks/review"
)

// SchemaVersion is the snapshot schema version this build writes. A
// snapshot with a newer MAJOR version is refused. 2.0.0 replaced 1.x's
// string map "data" (JSON inside strings, keyed "feedback/<id>",
// "files/<id>", ...) with typed fields; that is a MAJOR change because a
// 1.x build would ignore the typed fields and silently lose the plan and
// each sub-work-item's files, so it must refuse a 2.x snapshot. This build
// still reads 1.x snapshots (see decodeV1).
//
// 3.0.0 added the pin of the approved issue text (Pin) and gates that
// resume their stage rather than pass to the next (GateRecord.Resume).
// That is a MAJOR change too: a 2.x build would ignore Resume and, on
// approval, skip the paused stage, and would ignore the pin, so it must
// refuse a 3.x snapshot.
//
// 4.0.0 keeps one record per sub-work-item (SubWorkItems, see SWI) where
// 3.x spread it over five places: artifacts.sub_work_items, plan, swis,
// the "swi/<id>/<stage>" keys of attempts, remediation_cycles and
// ledger.per_swi. A 3.x build would find no plan and no sub-work-items in
// a 4.x snapshot and plan again, so it must refuse it. 2.x and 3.x
// snapshots are migrated on read (see migrateV3).
//
// 4.1.0 adds SWI.TestNotes, the test failures code generation did not
// count as regressions. A MINOR change: a 4.0 build reads a 4.1
// snapshot and only drops the notes, which the PR body already shows.
//
// 4.2.0 adds what binds an approval to the text a writer saw (IssuePin.Text,
// GateRecord.Text and Refused, Approval.Refused) and what orders state
// blocks (Seq, Labeled; issue 25). A MINOR change: a 4.1 build reads a 4.2
// snapshot, loses only these checks (it passes a gate on the text as it
// reads then, and accepts a restored older block, as it always did) and
// keeps every stage, gate and record; a 4.2 build reads a 4.1 snapshot as
// sequence 0 with no text kept (see Seq and Labeled for what that checks).
//
// 4.3.0 adds Revisions, the revision cycles of the work item's PRs on
// review feedback (issue 28). A MINOR change: a 4.2 build reads a 4.3
// snapshot and only drops the record (the cap is counted from the bot's
// own replies on the PR, not from the snapshot).
//
// 4.4.0 adds Design and Amended, the digests of the design files the plan
// was made from and of the amended ones a pause showed (issue 28). A MINOR
// change: a 4.3 build reads a 4.4 snapshot and only stops noticing an
// amended specification; a 4.4 build reads a 4.3 snapshot without a pin
// and pins the design as the next step past planning reads it.
//
// 4.5.0 adds Restacks, the last restack of each of the work item's PRs:
// retargeted, updated with its base, or its conflict resolved or left to
// a maintainer (issue 28). A MINOR change: a 4.4 build reads a 4.5
// snapshot and only drops the record (the resolutions are counted from
// the bot's own comments on the PR, not from the snapshot); a 4.5 build
// reads a 4.4 snapshot as one with no restack recorded.
const SchemaVersion = "4.5.0"

// oldestReadableMajor is the oldest MAJOR version ParseSnapshot migrates.
const oldestReadableMajor = 1

// Snapshot is the SASS "coordinates snapshot": everything needed to resume
// a work item, persisted as JSON in the hidden block of the CogWorks status
// comment. It must round-trip exactly through Render/Parse.
type Snapshot struct {
	SchemaVersion string `json:"schema_version"`
	Repo          string `json:"repo"`
	WorkItem      int    `json:"work_item"`
	Stage         Stage  `json:"stage"`
	// CurrentSWI is the id of the sub-work-item the per-SWI stages are
	// working on ("" outside them).
	CurrentSWI string `json:"current_swi,omitempty"`
	// Attempts counts executor attempts per stage name, for the stages that
	// run once per work item; a per-SWI stage counts in its SWI's record
	// (see Attempt and AddAttempt).
	Attempts map[Stage]int `json:"attempts,omitempty"`
	// TransientFailures counts, per stage, the invocations in a row that
	// failed with a transient error (an outage); past stage_max_retries
	// the pipeline fails.
	TransientFailures map[Stage]int            `json:"transient_failures,omitempty"`
	Lock              *LockRecord              `json:"lock,omitempty"`
	Artifacts         Artifacts                `json:"artifacts"`
	Classification    *classify.Classification `json:"classification,omitempty"`
	Ledger            Ledger                   `json:"ledger"`
	Approvals         []Approval               `json:"approvals,omitempty"`
	// Gate is set while a gate waits for a human.
	Gate    *GateRecord    `json:"gate,omitempty"`
	Failure *FailureRecord `json:"failure,omitempty"`
	// Stopped is set while a /cogworks stop holds the pipeline: nothing
	// runs until /cogworks retry or cogworks:run is applied again.
	Stopped *StopRecord `json:"stopped,omitempty"`
	// CommandsSeen is the highest comment id whose comment commands were
	// handled: each command acts once, however often its event arrives.
	CommandsSeen int64 `json:"commands_seen,omitempty"`
	// Interfaces is the interface list interface design produced; planning
	// and code generation read it.
	Interfaces []InterfaceDecl `json:"interfaces,omitempty"`
	// ScenarioHistory keeps each scenario's recent trajectory outcomes
	// (true = passed) across runs, for trust scores (scenario.History).
	ScenarioHistory map[string][]bool `json:"scenario_history,omitempty"`
	// SubWorkItems is the validated plan, one record per sub-work-item in
	// topological order, as planning recorded it: everything the pipeline
	// knows about a sub-work-item is in its record.
	SubWorkItems []SWI `json:"sub_work_items,omitempty"`
	// Pin is the issue text a writer approved (by triggering or at a
	// gate); an edit after that pauses the pipeline until a writer
	// approves again.
	Pin *IssuePin `json:"pin,omitempty"`
	// Skipped lists the stages this work item's path leaves out (the
	// design-skip of a small bug fix), decided once after intake. The
	// engine derives the item's transition table from it
	// (Machine.Variant), so a resumed item keeps its path.
	Skipped []Stage `json:"skipped,omitempty"`
	// Seq numbers the blocks CogWorks writes, one more on every write (0:
	// written before 4.2.0); the MAC covers it with the rest of the block.
	Seq int64 `json:"seq,omitempty"`
	// Revisions are the last revision cycle of each of the work item's
	// PRs that was revised on review feedback (4.3.0), in PR order.
	Revisions []RevisionRecord `json:"revisions,omitempty"`
	// Restacks are the last restack of each of the work item's PRs
	// (4.5.0), in PR order.
	Restacks []RestackRecord `json:"restacks,omitempty"`
	// Design pins the specification and interface files the plan was
	// made from (4.4.0); nil before planning.
	Design *DesignBasis `json:"design,omitempty"`
	// Amended is the changed design a pause showed, set while the
	// pipeline waits for a writer to approve it; the re-plan runs on it
	// only while the files still read so.
	Amended *DesignBasis `json:"amended,omitempty"`
	// Labeled is the stage label CogWorks had last written when it wrote
	// this block: the stage before this block's, or an older one when a
	// crash lost a label write. A block is current only while the stage
	// label CogWorks last applied (GitHub's append-only issue events) is
	// Stage or Labeled; a restored older block fails that.
	Labeled Stage `json:"labeled,omitempty"`
}

// IssuePin is the sha256 of an issue's title and body as approved.
type IssuePin struct {
	SHA256 string    `json:"sha256"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	// Via is how it was approved: trigger | label | merge | command, or
	// adopted when a run found the text already in place.
	Via ApprovalSource `json:"via"`
	// Text is the approved text itself when it is short enough to keep,
	// so that a pause can show what changed.
	Text *IssueText `json:"text,omitempty"`
}

// MaxKeptText bounds the issue text a snapshot keeps for diffs (title and
// body together): the status comment holds at most 65,536 characters.
const MaxKeptText = 4096

// IssueText is an issue's title and body as CogWorks saw them: the digest
// always, the text itself only up to MaxKeptText (Omitted otherwise).
type IssueText struct {
	SHA256  string `json:"sha256"`
	Title   string `json:"title,omitempty"`
	Body    string `json:"body,omitempty"`
	Omitted bool   `json:"omitted,omitempty"`
}

// NewIssueText records title and body, keeping the text when it is short.
func NewIssueText(title, body string) *IssueText {
	t := &IssueText{SHA256: IssueDigest(title, body)}
	if len(title)+len(body) > MaxKeptText {
		t.Omitted = true
		return t
	}
	t.Title, t.Body = title, body
	return t
}

// InterfaceDecl is one designed interface.
type InterfaceDecl struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	File    string `json:"file"`
	Summary string `json:"summary"`
}

// SWI is one sub-work-item: its plan entry and everything the pipeline
// tracks about it. Empty lists are nil, so a record round-trips exactly.
type SWI struct {
	// SubWorkItem is the plan entry (id, title, planned files, interfaces,
	// dependencies), inline in the JSON.
	planner.SubWorkItem
	// Issue is the sub-issue planning filed for it (0 before it exists).
	Issue int `json:"issue,omitempty"`
	// Order is its 1-based position in the plan's topological order; it
	// names the branch (cogworks/<N>/swi-<Order>).
	Order  int       `json:"order"`
	Status SWIStatus `json:"status"` // pending | in-progress | completed | failed
	Branch string    `json:"branch,omitempty"`
	PR     int       `json:"pr,omitempty"`
	// Attempts counts executor attempts per per-SWI stage name.
	Attempts map[Stage]int `json:"attempts,omitempty"`
	// RemediationCycles counts the loops back from scenario validation or
	// review to code generation.
	RemediationCycles int `json:"remediation_cycles,omitempty"`
	// Usage is what the LLM calls made for it cost.
	Usage Usage `json:"usage,omitzero"`
	// Feedback is pending for the next code generation (from scenario
	// validation or review); "" when there is none.
	Feedback string `json:"feedback,omitempty"`
	// Committed are the paths code generation committed, sorted and unique.
	Committed []string `json:"committed,omitempty"`
	// Findings are the non-blocking review findings kept for integration
	// (ASSERT-REVIEW-002).
	Findings []review.Finding `json:"findings,omitempty"`
	// TestNotes are what code generation's passing test run showed, kept
	// for the PR: which tests ran (names, pass and skip counts) and the
	// failing tests it did not count as regressions (failing at base too,
	// or flaky) with why each was eligible. The person deciding the merge
	// must see them, not only the audit trail.
	TestNotes []string `json:"test_notes,omitempty"`
}

// SubWorkItem returns the record of SWI id, nil when the plan has none.
// The pointer is into s.SubWorkItems: writes through it are the snapshot's.
func (s *Snapshot) SubWorkItem(id string) *SWI {
	for i := range s.SubWorkItems {
		if s.SubWorkItems[i].ID == id {
			return &s.SubWorkItems[i]
		}
	}
	return nil
}

// Attempt is the number of attempts stage has had: the current SWI's for a
// per-SWI stage, the work item's otherwise.
func (s *Snapshot) Attempt(stage Stage) int {
	if w := s.attemptOwner(stage); w != nil {
		return w.Attempts[stage]
	}
	return s.Attempts[stage]
}

// AddAttempt adds delta to stage's attempts (see Attempt).
func (s *Snapshot) AddAttempt(stage Stage, delta int) {
	m := &s.Attempts
	if w := s.attemptOwner(stage); w != nil {
		m = &w.Attempts
	}
	if *m == nil {
		*m = map[Stage]int{}
	}
	(*m)[stage] += delta
}

func (s *Snapshot) attemptOwner(stage Stage) *SWI {
	if !stage.PerSWI() || s.CurrentSWI == "" {
		return nil
	}
	return s.SubWorkItem(s.CurrentSWI)
}

// LockRecord records who holds the processing lock and since when.
type LockRecord struct {
	Owner    string    `json:"owner"`
	Acquired time.Time `json:"acquired"`
}

// Artifacts lists what the pipeline has produced on GitHub.
type Artifacts struct {
	SpecBranch      string `json:"spec_branch,omitempty"`
	SpecPR          int    `json:"spec_pr,omitempty"`
	InterfaceBranch string `json:"interface_branch,omitempty"`
	InterfacePR     int    `json:"interface_pr,omitempty"`
}

// Usage is token and cost accounting for a set of LLM calls.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Ledger is the token/cost ledger per stage; what each sub-work-item cost
// is in its record (SWI.Usage).
type Ledger struct {
	PerStage map[string]Usage `json:"per_stage,omitempty"`
}

// Approval records a gate approval.
type Approval struct {
	Stage Stage          `json:"stage"`
	SWI   string         `json:"swi,omitempty"`
	By    string         `json:"by"`
	At    time.Time      `json:"at"`
	Via   ApprovalSource `json:"via"` // label | merge | command
	// EventID is the label event that approved (0 for merges).
	EventID int64 `json:"event_id,omitempty"`
	// CommentID is the comment whose /cogworks approve approved.
	CommentID int64 `json:"comment_id,omitempty"`
	// Refused says why this approval did not pass the gate (the issue
	// changed after it was given); it stays listed so that it is spent.
	Refused string `json:"refused,omitempty"`
}

// StopRecord records who stopped the pipeline, when, and with which
// comment.
type StopRecord struct {
	By        string    `json:"by"`
	At        time.Time `json:"at"`
	CommentID int64     `json:"comment_id,omitempty"`
}

// GateRecord records a gate that is waiting for a human.
type GateRecord struct {
	Stage  Stage     `json:"stage"`
	SWI    string    `json:"swi,omitempty"`
	Since  time.Time `json:"since"`
	Reason string    `json:"reason,omitempty"`
	// Resume marks a pause inside Stage (an untrusted trigger, an issue
	// edited after approval): approving resumes Stage instead of passing
	// to the next one.
	Resume bool `json:"resume,omitempty"`
	// Text is the issue text the gate was opened on, when it differs from
	// the pin (a pause for an edit or an untrusted trigger): an approval
	// passes the gate only while the issue still reads so. Without it the
	// pin is that text.
	Text *IssueText `json:"text,omitempty"`
	// Refused marks a gate reopened because the issue changed between a
	// writer's approval and the step that would have passed it: only an
	// approval given after that (a label or a command) passes it, never
	// the earlier merge of the stage's PR.
	Refused bool `json:"refused,omitempty"`
}

// FailureRecord records why the pipeline failed.
type FailureRecord struct {
	Stage  Stage     `json:"stage"`
	SWI    string    `json:"swi,omitempty"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// IssueDigest is the hex sha256 of an issue's title and body, the text a
// writer approves. The title's length prefixes it, so text cannot move
// between title and body unnoticed.
func IssueDigest(title, body string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n%s\n%s", len(title), title, body)
	return hex.EncodeToString(h.Sum(nil))
}
