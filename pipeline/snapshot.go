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
// refuse a 3.x snapshot. A 2.x snapshot reads as a 3.0.0 one without a
// pin; the next acting step pins the issue as it then reads.
const SchemaVersion = "3.0.0"

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
	// Attempts counts executor attempts per stage name and per SWI
	// ("swi/<id>/<stage>").
	Attempts map[string]int `json:"attempts,omitempty"`
	// TransientFailures counts, per stage, the invocations in a row that
	// failed with a transient error (an outage); past stage_max_retries
	// the pipeline fails.
	TransientFailures map[string]int `json:"transient_failures,omitempty"`
	// RemediationCycles counts review→code-generation loops per SWI id.
	RemediationCycles map[string]int           `json:"remediation_cycles,omitempty"`
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
	// Plan is the validated plan's sub-work-items in topological order, as
	// planning recorded them.
	Plan []planner.SubWorkItem `json:"plan,omitempty"`
	// ScenarioHistory keeps each scenario's recent trajectory outcomes
	// (true = passed) across runs, for trust scores (scenario.History).
	ScenarioHistory map[string][]bool `json:"scenario_history,omitempty"`
	// SWIs holds what the per-SWI stages hand each other, by SWI id.
	SWIs map[string]SWIState `json:"swis,omitempty"`
	// Pin is the issue text a writer approved (by triggering or at a
	// gate); an edit after that pauses the pipeline until a writer
	// approves again.
	Pin *IssuePin `json:"pin,omitempty"`
	// Skipped lists the stages this work item's path leaves out (the
	// design-skip of a small bug fix), decided once after intake. The
	// engine derives the item's transition table from it
	// (Machine.Variant), so a resumed item keeps its path.
	Skipped []Stage `json:"skipped,omitempty"`
}

// IssuePin is the sha256 of an issue's title and body as approved.
type IssuePin struct {
	SHA256 string    `json:"sha256"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
	// Via is how it was approved: trigger | label | merge | command.
	Via string `json:"via"`
}

// InterfaceDecl is one designed interface.
type InterfaceDecl struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	File    string `json:"file"`
	Summary string `json:"summary"`
}

// SWIState is the per-sub-work-item record the per-SWI stages share. Empty
// lists are nil, so a record round-trips exactly.
type SWIState struct {
	// Feedback is pending for the next code generation (from scenario
	// validation or review); "" when there is none.
	Feedback string `json:"feedback,omitempty"`
	// Files are the paths code generation committed, sorted and unique.
	Files []string `json:"files,omitempty"`
	// Findings are the non-blocking review findings kept for integration
	// (ASSERT-REVIEW-002).
	Findings []review.Finding `json:"findings,omitempty"`
}

// IsZero reports whether the record holds nothing.
func (w SWIState) IsZero() bool {
	return w.Feedback == "" && len(w.Files) == 0 && len(w.Findings) == 0
}

// SWI returns the record of SWI id (the zero record when there is none).
func (s *Snapshot) SWI(id string) SWIState {
	return s.SWIs[id]
}

// SetSWI stores the record of SWI id; a zero record is removed, so the map
// holds only records with content and is nil when it holds none.
func (s *Snapshot) SetSWI(id string, w SWIState) {
	if len(w.Files) == 0 {
		w.Files = nil
	}
	if len(w.Findings) == 0 {
		w.Findings = nil
	}
	if w.IsZero() {
		delete(s.SWIs, id)
		if len(s.SWIs) == 0 {
			s.SWIs = nil
		}
		return
	}
	if s.SWIs == nil {
		s.SWIs = map[string]SWIState{}
	}
	s.SWIs[id] = w
}

// LockRecord records who holds the processing lock and since when.
type LockRecord struct {
	Owner    string    `json:"owner"`
	Acquired time.Time `json:"acquired"`
}

// Artifacts lists what the pipeline has produced on GitHub.
type Artifacts struct {
	SpecBranch      string      `json:"spec_branch,omitempty"`
	SpecPR          int         `json:"spec_pr,omitempty"`
	InterfaceBranch string      `json:"interface_branch,omitempty"`
	InterfacePR     int         `json:"interface_pr,omitempty"`
	SubWorkItems    []SWIRecord `json:"sub_work_items,omitempty"`
}

// SWIRecord is one sub-work-item as the pipeline tracks it.
type SWIRecord struct {
	ID        string   `json:"id"`
	Issue     int      `json:"issue"`
	Order     int      `json:"order"`
	DependsOn []string `json:"depends_on,omitempty"`
	Status    string   `json:"status"` // pending | in-progress | completed | failed
	Branch    string   `json:"branch,omitempty"`
	PR        int      `json:"pr,omitempty"`
}

// Usage is token and cost accounting for a set of LLM calls.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	CostUSD      float64 `json:"cost_usd"`
}

// Ledger is the token/cost ledger, per stage and per SWI id.
type Ledger struct {
	PerStage map[string]Usage `json:"per_stage,omitempty"`
	PerSWI   map[string]Usage `json:"per_swi,omitempty"`
}

// Approval records a gate approval.
type Approval struct {
	Stage Stage     `json:"stage"`
	SWI   string    `json:"swi,omitempty"`
	By    string    `json:"by"`
	At    time.Time `json:"at"`
	Via   string    `json:"via"` // label | merge | command
	// EventID is the label event that approved (0 for merges).
	EventID int64 `json:"event_id,omitempty"`
	// CommentID is the comment whose /cogworks approve approved.
	CommentID int64 `json:"comment_id,omitempty"`
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
