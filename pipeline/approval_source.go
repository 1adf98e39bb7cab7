package pipeline

// ApprovalSource is how a human approval reached CogWorks, as recorded in
// the snapshot's approvals and issue pin ("via"). docs/spec.md §4 lists
// the gate's approval sources; internal/engine's TestVocabularyDocumented
// keeps that list equal to GateApprovalSources.
type ApprovalSource string

// Approval sources.
const (
	// ViaTrigger pins the issue text as the trigger label's author saw it.
	ViaTrigger ApprovalSource = "trigger"
	// ViaLabel is the cogworks:approve label.
	ViaLabel ApprovalSource = "label"
	// ViaMerge is the merge of the gate's PR.
	ViaMerge ApprovalSource = "merge"
	// ViaCommand is a /cogworks approve comment.
	ViaCommand ApprovalSource = "command"
	// ViaAdopted pins issue text a run found already in place, with no
	// approval to attribute it to.
	ViaAdopted ApprovalSource = "adopted"
)

// GateApprovalSources are the ways a gate can be passed: what
// Approval.Via holds.
func GateApprovalSources() []ApprovalSource {
	return []ApprovalSource{ViaLabel, ViaMerge, ViaCommand}
}
