package pipeline

import (
	"slices"
	"strings"
)

// StateID names a state of the pipeline state machine. Operational states
// are named after their stage ("interface-design"); gates are
// "gate_<stage>".
type StateID string

// Fixed states of the pipeline machine.
const (
	StateWakeUp       StateID = "wake_up"
	StateFailure      StateID = "failure"
	StateExitComplete StateID = "exit_complete"
	StateExitFailed   StateID = "exit_failed"
	StateExitWaiting  StateID = "exit_waiting"
	// StateRevision revises one of the item's open PRs on review
	// feedback (issue 28) and leaves its stage as it was.
	StateRevision StateID = "revision"
	// StateReplan re-plans the sub-work-items on an amended, re-approved
	// specification (issue 28) and leaves the unaffected ones as they are.
	StateReplan StateID = "replan"
)

// StateKind is the SASS state type.
type StateKind string

// State kinds.
const (
	KindCheckpoint  StateKind = "checkpoint"
	KindOperational StateKind = "operational"
	KindGate        StateKind = "gate"
	KindFailure     StateKind = "failure"
	KindExit        StateKind = "exit"
	// KindSide is work beside the stages (a revision of an open PR): it
	// leaves the item's stage as it is and ends the step.
	KindSide StateKind = "side"
)

// Idempotence is the SASS re-entry contract of a state.
type Idempotence string

// Idempotence classes.
const (
	// SafeRepeat: re-entering repeats no externally visible effect, or only
	// keyed writes that converge (labels, marker-keyed comments).
	SafeRepeat Idempotence = "safe_repeat"
	// RequiresCheckpoint: re-entering is correct only after consulting the
	// snapshot and the deterministic keys of earlier writes (branch names,
	// PR head, sub-issue markers), otherwise work or tokens are duplicated.
	RequiresCheckpoint Idempotence = "requires_checkpoint"
	// NonRepeatable: the state performs a write GitHub cannot deduplicate;
	// it must record completion before reporting it and never run twice.
	NonRepeatable Idempotence = "non_repeatable"
)

// State is one state of the machine.
type State struct {
	ID          StateID
	Kind        StateKind
	Idempotence Idempotence
	Terminal    bool
	// Stage is the pipeline stage an operational state executes, or the
	// stage a gate follows.
	Stage Stage
	// GateKey is a gate's configuration key (config gates.<key>); the
	// per-SWI gate after review is configured as "integration".
	GateKey string
}

// Guard is a named predicate. Expr documents it in pseudo-code over the
// observation read by wake_up (labels, snapshot, lock, gate verdict) and
// the executor's result. Holds, when set, is the predicate the engine
// evaluates before it takes a transition out of an operational or gate
// state (Fire, Settle); a guard without Holds is established by whoever
// reports the event (wake_up's Decide, or the executor's own checks).
type Guard struct {
	ID    string
	Expr  string
	Holds func(GuardInput) bool
}

// Transition is a directed edge. Failure marks an explicit failure
// transition (into the failure state or a failed exit).
type Transition struct {
	From, To StateID
	On       Event
	GuardRef string
	Failure  bool
}

// Capabilities is the SASS capability manifest, as operation names. It
// mirrors github.DefaultManifest, which the GitHub adapter enforces;
// TestCapabilityManifestMatchesMachine fails when the two differ.
type Capabilities struct {
	Allow, Deny []string
}

// Machine is a SASS state machine as data.
type Machine struct {
	ID      string
	Version string
	Start   StateID
	// Coordinates are the snapshot (JSON) fields persisted on every
	// transition and reloaded by wake_up.
	Coordinates  []string
	States       []State
	Guards       []Guard
	Transitions  []Transition
	Capabilities Capabilities
}

// State returns the state with the given id.
func (m Machine) State(id StateID) (State, bool) {
	for _, s := range m.States {
		if s.ID == id {
			return s, true
		}
	}
	return State{}, false
}

// StateForStage returns the operational state of a stage; the terminal
// stages map to their exits. Unknown stages yield "".
func StateForStage(s Stage) StateID {
	switch {
	case s == StageComplete:
		return StateExitComplete
	case s == StageFailed:
		return StateExitFailed
	case s.Valid():
		return StateID(s)
	}
	return ""
}

// GateState returns the gate state that follows stage s, or "" when s is
// not gated (see GateKey).
func GateState(s Stage) StateID {
	if GateKey(s) == "" {
		return ""
	}
	return StateID("gate_" + string(s))
}

// StateForSnapshot returns where a snapshot stands in the machine: the
// gate while one waits, else the stage's state; wake_up for a fresh item.
func StateForSnapshot(s Snapshot) StateID {
	if s.Gate != nil && !s.Stage.Terminal() {
		if g := GateState(s.Gate.Stage); g != "" {
			return g
		}
	}
	if s.Stage == "" {
		return StateWakeUp
	}
	return StateForStage(s.Stage)
}

// idempotenceOf assigns each stage its re-entry class.
func idempotenceOf(s Stage) Idempotence {
	switch s {
	case StageIntake, StageArchitecture, StageInterfaceDesign, StagePlanning, StageCodeGeneration:
		// LLM calls cost tokens and their outputs are written under
		// deterministic keys (classification comment, cogworks/<N>/spec and
		// /interfaces branches and PRs, sub-issue markers, swi branches):
		// a re-entry must consult the snapshot and those keys first, or it
		// pays again and may write a second, different artifact.
		return RequiresCheckpoint
	case StageScenarioValidation:
		// Read-only against the repository: trajectories run in the domain
		// service and the result replaces one keyed comment. Repeating only
		// re-measures.
		return SafeRepeat
	case StageReview:
		// The remediation-cycle counter lives in the snapshot: re-running a
		// review without the checkpoint would count a cycle twice.
		return RequiresCheckpoint
	case StageIntegration:
		// Posts one PR review carrying the inline comments; GitHub cannot
		// deduplicate reviews, so completion is recorded in the snapshot
		// and the state is never entered twice for a SWI.
		return NonRepeatable
	}
	return ""
}

// operationalStages are the stages with an operational state.
func operationalStages() []Stage { return append([]Stage(nil), stageOrder[:8]...) }

func stateKey(s Stage) string { return strings.ReplaceAll(string(s), "-", "_") }

// StateMachine returns CogWorks's pipeline as a SASS machine.
func StateMachine() Machine {
	m := Machine{
		ID:      "cogworks.pipeline",
		Version: "1.0.0",
		Start:   StateWakeUp,
		// SASS coordinates, as snapshot fields: project_id=repo,
		// task_id=work_item, state_id=stage (+current_swi),
		// attempt_count=attempts, last_artifacts=artifacts; skill_id and
		// allowed_capabilities are this machine's ID and Capabilities, and
		// workspace_root comes from the invocation, not the snapshot.
		Coordinates: []string{"schema_version", "repo", "work_item", "stage", "current_swi", "attempts",
			"sub_work_items", "lock", "artifacts", "ledger", "approvals", "gate", "failure", "design", "amended"},
		Capabilities: Capabilities{
			Allow: []string{"pulls.review.comment", "issues.write", "labels.write", "comments.write",
				"reactions.write", "pulls.write", "git.write", "sub_issues.write", "repo.labels.write",
				"sub_issues.close_obsolete", "actions.runs.rerun_failed_jobs"},
			Deny: []string{"pulls.merge", "pulls.review.approve", "pulls.review.request_changes",
				"pulls.close", "issues.close", "git.refs.delete", "git.write.protected_path"},
		},
	}
	guard := func(id, expr string) string {
		m.Guards = append(m.Guards, Guard{ID: id, Expr: expr})
		return id
	}
	// checked declares a guard the engine evaluates before it takes the
	// transition.
	checked := func(id, expr string, holds func(GuardInput) bool) string {
		m.Guards = append(m.Guards, Guard{ID: id, Expr: expr, Holds: holds})
		return id
	}
	edge := func(from, to StateID, on Event, guardRef string) {
		m.Transitions = append(m.Transitions, Transition{From: from, To: to, On: on, GuardRef: guardRef,
			Failure: to == StateFailure || to == StateExitFailed})
	}
	path := operationalStages()
	// after is the stage that follows st on the main path.
	after := func(st Stage) Stage { return path[slices.Index(path, st)+1] }

	m.States = append(m.States, State{ID: StateWakeUp, Kind: KindCheckpoint, Idempotence: SafeRepeat})
	for _, st := range operationalStages() {
		m.States = append(m.States, State{ID: StateForStage(st), Kind: KindOperational, Idempotence: idempotenceOf(st), Stage: st})
		if g := GateState(st); g != "" {
			// Gates only read labels and events and record the verdict.
			m.States = append(m.States, State{ID: g, Kind: KindGate, Idempotence: SafeRepeat, Stage: st, GateKey: GateKey(st)})
		}
	}
	m.States = append(m.States,
		// The failure state posts a keyed report and sets labels: converges.
		State{ID: StateFailure, Kind: KindFailure, Idempotence: SafeRepeat},
		State{ID: StateExitComplete, Kind: KindExit, Idempotence: SafeRepeat, Terminal: true},
		State{ID: StateExitFailed, Kind: KindExit, Idempotence: SafeRepeat, Terminal: true},
		State{ID: StateExitWaiting, Kind: KindExit, Idempotence: SafeRepeat, Terminal: true},
		// A revision's commit carries a trailer naming its PR, cycle and
		// threads, and each reply a marker: a re-entry reads them back and
		// completes the cycle without a second commit or reply.
		State{ID: StateRevision, Kind: KindSide, Idempotence: RequiresCheckpoint},
		// A re-plan's answer is kept in a comment keyed by the amended
		// design's digest, each new sub-issue found by its marker and each
		// obsolete one's notice by its key: a re-entry consults them and
		// writes nothing twice.
		State{ID: StateReplan, Kind: KindSide, Idempotence: RequiresCheckpoint},
	)

	// wake_up: exit without writing, or resume.
	edge(StateWakeUp, StateExitWaiting, EventNoOp, guard("guard_not_runnable",
		"!labels.run || lock == fresh || (snapshot.gate != nil && !gate.approved)"))
	edge(StateWakeUp, StateExitComplete, EventTerminal, guard("guard_already_complete", "stage == complete"))
	edge(StateWakeUp, StateExitFailed, EventTerminal, guard("guard_already_failed", "stage == failed && !labels.retry"))
	for _, st := range operationalStages() {
		expr := "labels.run && lock != fresh && snapshot.gate == nil && (stage == " + string(st) +
			" || (stage == failed && labels.retry && failure.stage == " + string(st) + "))"
		if st == StageIntake {
			expr = "labels.run && lock != fresh && snapshot.gate == nil && (stage == none || stage == intake || (stage == failed && labels.retry && failure.stage == intake))"
		}
		edge(StateWakeUp, StateForStage(st), EventResume, guard("guard_resume_"+stateKey(st), expr))
		if g := GateState(st); g != "" {
			edge(StateWakeUp, g, EventResumeGate, guard("guard_gate_approved_"+stateKey(st),
				"labels.run && lock != fresh && snapshot.gate.stage == "+string(st)+" && gate.approved"))
		}
	}

	// Stage results.
	done := func(st Stage, expr string) {
		to := StateForStage(after(st))
		if g := GateState(st); g != "" {
			to = g
		}
		edge(StateForStage(st), to, EventDone, guard("guard_"+stateKey(st)+"_done", expr))
	}
	done(StageIntake, "classification valid && scope within threshold")
	done(StageArchitecture, "spec valid (modules exist or new, constraints hold) && spec PR open")
	done(StageInterfaceDesign, "domain service validate ok && registry contracts hold && interface PR open")
	done(StagePlanning, "plan acyclic && 1 <= items <= max_sub_work_items && interfaces covered && sub-issues created")
	done(StageCodeGeneration, "domain validate ok && simulate ok && swi branch committed")
	done(StageScenarioValidation, "no applicable scenario || (score >= threshold && no failure criterion hit)")
	done(StageReview, "no blocking finding in any of the four passes")
	edge(StateForStage(StageScenarioValidation), StateForStage(StageCodeGeneration), EventRemediate,
		checked("guard_scenarios_remediate", "score < threshold && remediation_cycles(swi) <= review_max_remediation_cycles",
			withinRemediationLimit))
	edge(StateForStage(StageReview), StateForStage(StageCodeGeneration), EventRemediate,
		checked("guard_review_remediate", "blocking finding && remediation_cycles(swi) <= review_max_remediation_cycles",
			withinRemediationLimit))
	edge(StateForStage(StageIntegration), StateForStage(StageCodeGeneration), EventNextSWI,
		checked("guard_more_swis", "swi PR open && some sub-work-item not completed",
			func(in GuardInput) bool { return remainingSWIs(in.Snapshot) > 0 }))
	allDone := checked("guard_all_swis_done", "every sub-work-item completed",
		func(in GuardInput) bool { return remainingSWIs(in.Snapshot) == 0 })
	edge(StateForStage(StageIntegration), StateExitComplete, EventAllDone, allDone)
	// A re-entered code generation that finds every SWI integrated (a
	// crash after integration's last write) completes the pipeline.
	edge(StateForStage(StageCodeGeneration), StateExitComplete, EventAllDone, allDone)

	// Gates: pass on auto-proceed or a valid approval, else wait.
	for _, st := range operationalStages() {
		g := GateState(st)
		if g == "" {
			continue
		}
		edge(g, StateForStage(after(st)), EventGatePassed, checked("guard_gate_"+stateKey(st)+"_passed",
			"gate mode("+GateKey(st)+") == auto-proceed || approval by write+ user", gatePasses))
		edge(g, StateExitWaiting, EventGatePending, checked("guard_gate_"+stateKey(st)+"_pending",
			"gate mode("+GateKey(st)+") == human-gated && !approval", func(in GuardInput) bool { return !gatePasses(in) }))
	}

	// Revisions of the item's open PRs on review feedback, beside the
	// stages: the item stays where it was.
	edge(StateWakeUp, StateRevision, EventRevise, checked("guard_revise",
		"a writer's or trusted bot's review thread on an open PR of the item awaits an answer && snapshot != nil && !stopped && lock != fresh",
		revisable))
	edge(StateRevision, StateExitWaiting, EventRevised, checked("guard_revised",
		"cycle <= revision.max_cycles && one follow-up commit && one reply per thread", withinRevisionCap))
	edge(StateRevision, StateExitWaiting, EventRevisionStopped, guard("guard_revision_stopped",
		"(cycle > revision.max_cycles || the cycle changed nothing) && every thread answered with why"))
	edge(StateRevision, StateExitWaiting, EventCIInfrastructure, guard("guard_ci_infrastructure",
		"CI failed on the infrastructure only && (failed jobs of each first attempt re-run once || the PR told once) && no cycle spent"))

	// An amended design (issue 28, point 5): an item in a per-SWI stage
	// re-plans once a writer approved the amended text, then code
	// generation picks up the new or changed sub-work-items.
	edge(StateWakeUp, StateReplan, EventAmended, checked("guard_design_amended",
		"stage is per-SWI && snapshot.design != nil && snapshot.amended differs from it && a writer approved snapshot.amended (the text the pause showed) && the design files still read so",
		designAmended))
	edge(StateReplan, StateForStage(StageCodeGeneration), EventReplanned, guard("guard_replanned",
		"new and changed sub-work-items filed && obsolete ones told (and closed when the bot opened them) && unaffected records unchanged"))
	edge(StateReplan, StateFailure, EventEscalate, guard("guard_replan_failed",
		"the amended plan fails validation || unrecoverable error"))

	// Explicit failure transitions.
	for _, st := range operationalStages() {
		edge(StateForStage(st), StateFailure, EventEscalate, guard("guard_"+stateKey(st)+"_failed",
			"unrecoverable error || retry budget exhausted || cost budget exceeded || escalation"))
	}
	edge(StateFailure, StateExitFailed, EventHalt, guard("guard_failure_reported",
		"failure report posted && labels.stage == failed"))
	return m
}
