package pipeline

import (
	"time"

	"github.com/cogworks/cogworks/classify"
)

// SchemaVersion is the snapshot schema version this build writes. A
// snapshot with a newer MAJOR version is refused.
const SchemaVersion = "1.0.0"

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
	// Data holds small stage-owned values that later stages read (e.g. the
	// interface ids produced by interface design), keyed by name.
	Data map[string]string `json:"data,omitempty"`
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
}

// FailureRecord records why the pipeline failed.
type FailureRecord struct {
	Stage  Stage     `json:"stage"`
	SWI    string    `json:"swi,omitempty"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}
