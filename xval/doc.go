// Package xval is CogWorks's cross-domain validation (docs/spec.md §11): the
// interface registry in .cogworks/interfaces/*.toml, its JSON Schema
// validation and consistency checks, and constraint validation of values
// extracted from artifacts against the registered contracts.
//
// Loading (LoadRegistry, ValidateDir) is the only I/O: it reads the TOML
// files, decodes each one to a generic map, validates it against the
// published JSON Schema (schemas/interface-registry.schema.json, embedded
// here as schema/interface-registry.schema.json and kept identical by a
// test) and then builds typed Interface values. Every problem in every file
// is collected (errors.Join); each message names the file, the interface id
// and the field, e.g.
//
//	.cogworks/interfaces/can.toml: interface SWD-IF-CAN-01: parameters.max_bus_load.max: expected number, got string
//
// A missing directory is an empty registry.
//
// Everything else is pure:
//   - (*Registry).Check finds duplicate ids, conflicting constraints on the
//     same parameter of the same interface type, domains without a
//     registered service and interface versions a service does not support
//     (ASSERT-XDOM-001/003); (*Registry).CheckRefs checks ref parameters
//     against an fs.FS of the repository.
//   - Validate compares ExtractedValues with the contracts (tolerance,
//     exact, enum, bool and structured parameters) and runs the computed
//     constraints (ComputedConstraint; CANBusLoad is the built-in one).
//     It needs only the registry and the values of one domain, never the
//     owner domain's service (ASSERT-XVAL-005).
//   - ValidateProposal validates values proposed at the architecture stage,
//     where new structured items (e.g. CAN messages) may not exist yet.
//
// Findings are returned sorted (blocking first, then by interface,
// parameter, artifact and line) so output is deterministic. No function
// keeps state; all are safe for concurrent use.
//
// Stability: this package is part of CogWorks's Go API (the top-level
// packages pipeline, stages, classify, planner, review, xval and idem, beside
// domain). Until v1.0.0 of the module its exported names may change in any
// minor release; breaking changes are listed in the release notes.
package xval
