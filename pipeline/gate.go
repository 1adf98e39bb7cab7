package pipeline

import "slices"

// GateMode is how the gate after a stage behaves.
type GateMode string

// Gate modes.
const (
	AutoProceed GateMode = "auto-proceed"
	HumanGated  GateMode = "human-gated"
)

// GatePolicy holds the configured gate mode per gate key (see GateKey).
type GatePolicy struct {
	Modes map[string]GateMode
}

// GateKey returns the configuration key of the gate that follows stage s,
// or "" when no gate follows it. Stages 1–4 are gated after themselves;
// the per-SWI steps are gated once, between review and integration, under
// the "integration" key (docs/spec.md §5, Gates).
func GateKey(s Stage) string {
	switch s {
	case StageIntake, StageArchitecture, StageInterfaceDesign, StagePlanning:
		return string(s)
	case StageReview:
		return string(StageIntegration)
	}
	return ""
}

// Mode returns the effective mode of the gate after stage s. A
// safety-critical work item makes the gates of code-producing stages
// human-gated whatever the configuration says (ASSERT-PSM-004).
func (p GatePolicy) Mode(s Stage, safetyCritical bool) GateMode {
	return p.ModeOf(GateKey(s), s, safetyCritical)
}

// ModeOf returns the effective mode of the gate configured under key that
// follows stage s: a gate state of the machine names both (State.GateKey,
// State.Stage).
func (p GatePolicy) ModeOf(key string, s Stage, safetyCritical bool) GateMode {
	if key == "" {
		return AutoProceed
	}
	if safetyCritical {
		gated, _ := ParseStage(key)
		if s.CodeProducing() || gated.CodeProducing() {
			return HumanGated
		}
	}
	if m, ok := p.Modes[key]; ok {
		return m
	}
	return AutoProceed
}

// ApprovingPermissions are the collaborator permissions whose
// cogworks:approve label passes a gate.
var approvingPermissions = map[string]bool{"admin": true, "maintain": true, "write": true}

// CanApprove reports whether a collaborator permission may approve a gate.
func CanApprove(permission string) bool { return approvingPermissions[permission] }

// LabelEvent is a labeled/unlabeled event from an issue's timeline.
type LabelEvent struct {
	ID     int64
	Action string // labeled | unlabeled
	Label  string
	Actor  string
}

// ApprovalVerdict is the outcome of evaluating a waiting gate.
type ApprovalVerdict struct {
	Approved bool
	By       string
	Via      ApprovalSource // label | merge | command
	// EventID is the label event that approved; it can approve only once.
	EventID int64
	// CommentID is the comment whose /cogworks approve approved.
	CommentID int64
	// Stale is set when the label on the issue is one an earlier gate
	// already consumed (its removal was lost); it should be removed.
	Stale bool
	// Rejected lists "login (permission)" of users whose approval did not
	// count; they are reported in the status comment.
	Rejected []string
}

// EvaluateLabelApproval decides whether the cogworks:approve label
// currently on the issue passes the gate. events are the label
// events in chronological order; permissions maps actor logins to their
// collaborator permission; bot is CogWorks's own login, whose labels never
// approve. The approval counts only if the latest application of the label
// came from a user with write, maintain or admin permission, and that
// event has not approved an earlier gate (used lists the event ids earlier
// approvals consumed): a label left behind by a crash cannot pass the next
// gate.
func EvaluateLabelApproval(labelPresent bool, events []LabelEvent, permissions map[string]string, bot string, used []int64) ApprovalVerdict {
	if !labelPresent {
		return ApprovalVerdict{}
	}
	var last *LabelEvent
	for i := range events {
		if events[i].Label == LabelApprove && events[i].Action == "labeled" {
			last = &events[i]
		}
	}
	if last == nil {
		return ApprovalVerdict{}
	}
	if slices.Contains(used, last.ID) {
		return ApprovalVerdict{Stale: true}
	}
	if last.Actor == bot {
		return ApprovalVerdict{Rejected: []string{last.Actor + " (CogWorks itself)"}}
	}
	perm := permissions[last.Actor]
	if !CanApprove(perm) {
		if perm == "" {
			perm = "none"
		}
		return ApprovalVerdict{Rejected: []string{last.Actor + " (" + perm + ")"}}
	}
	return ApprovalVerdict{Approved: true, By: last.Actor, Via: ViaLabel, EventID: last.ID}
}

// ApprovalActors returns the distinct actors whose permission
// EvaluateLabelApproval needs: only the latest approver matters, so this is
// at most one login.
func ApprovalActors(events []LabelEvent) []string {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Label == LabelApprove && events[i].Action == "labeled" {
			return []string{events[i].Actor}
		}
	}
	return nil
}
