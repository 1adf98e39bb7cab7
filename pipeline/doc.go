// Package pipeline is the pure core of CogWorks: the stages, the label
// codec, the state snapshot and its codec, the SASS state machine as data
// (with its validator and Mermaid projection), gate and lock rules and the
// next-action decision. It performs no I/O; the step function that wires
// it to GitHub, the LLM and domain services lives in package engine.
//
// Contracts:
//
//   - Labels. ParseLabels and LabelSet.Encode are a bidirectional mapping
//     between typed values and label strings. Labels outside the cogworks:
//     namespace are ignored; cogworks: labels the codec does not understand
//     are reported in LabelSet.Unknown and re-emitted by Encode, never
//     dropped. Encode(ParseLabels(Encode(x))) == Encode(x).
//   - Snapshot. RenderSnapshot writes the hidden block
//     "<!-- cogworks:state {json} -->" of the status comment; the JSON never
//     contains "--" or '>', so text in the snapshot cannot end the HTML
//     comment. ParseSnapshot(RenderSnapshot(s)) == s exactly (times in UTC
//     at second precision). A snapshot with a newer MAJOR schema version is
//     refused with a *VersionError; newer MINOR fields are ignored; a 1.x
//     snapshot (stage values as JSON strings in "data") is migrated to the
//     typed fields (Interfaces, ScenarioHistory, SubWorkItems), and a 1.x
//     to 3.x one to one record per sub-work-item (SWI).
//   - State machine. StateMachine describes the pipeline under SASS v0.1:
//     start state wake_up, one operational state per stage, a gate state
//     after each gated stage, an explicit failure state, and the terminal
//     exits exit_complete, exit_failed and exit_waiting. Every transition
//     is guarded and every state carries an idempotence class.
//     Machine.Validate reports every SASS violation at once. The machine
//     drives the pipeline: an executor reports an Event, Machine.Fire
//     returns the transition whose guard holds (remediation limit,
//     remaining sub-work-items), Machine.Settle passes or holds a gate
//     (gate mode, safety-critical gating, approval), and Machine.Skip
//     builds a variant without a stage. The same table is drawn
//     (Machine.Mermaid) and places a snapshot (StateForSnapshot); wake_up's
//     decision to run at all is Decide.
//
// All functions are deterministic and safe for concurrent use; values are
// plain data.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package pipeline
