package demo

// contractGo is the interface-design output: the constants the telemetry
// code shares with the firmware team's CAN contract, each bound to its
// registry parameter with a //cogworks:contract directive.
const contractGo = `package telemetry

// BrakePressureID is the CAN identifier of the front-left brake pressure frame.
//
//cogworks:contract SWD-IF-CAN-01 messages.BrakePressureFL.can_id
const BrakePressureID = 0x120

// BrakePressureSize is the payload size of a brake pressure frame in bytes.
//
//cogworks:contract SWD-IF-CAN-01 messages.BrakePressureFL.size_bytes
const BrakePressureSize = 4

// BrakePressureCycleMS is the shortest interval between two brake pressure
// frames, in milliseconds.
//
//cogworks:contract SWD-IF-CAN-01 messages.BrakePressureFL.cycle_ms
const BrakePressureCycleMS = 10
`

// brakeGoBroken is the first code-generation attempt: it does not compile
// (payload is undefined), so the domain service's type_error diagnostic is
// fed back and the second attempt fixes it.
const brakeGoBroken = `package telemetry

import (
	"encoding/binary"
	"fmt"
)

// EncodeBrakePressure encodes a brake pressure reading in kPa as a CAN frame.
func EncodeBrakePressure(kpa uint32) Frame {
	data := make([]byte, BrakePressureSize)
	binary.BigEndian.PutUint32(data, kpa)
	return Frame{ID: BrakePressureID, Data: payload}
}

// DecodeBrakePressure decodes a frame produced by EncodeBrakePressure.
func DecodeBrakePressure(f Frame) (uint32, error) {
	if f.ID != BrakePressureID {
		return 0, fmt.Errorf("frame %#x is not a brake pressure frame", f.ID)
	}
	return binary.BigEndian.Uint32(f.Data), nil
}
`

const brakeGo = `package telemetry

import (
	"encoding/binary"
	"fmt"
)

// EncodeBrakePressure encodes a brake pressure reading in kPa as a CAN frame.
func EncodeBrakePressure(kpa uint32) Frame {
	data := make([]byte, BrakePressureSize)
	binary.BigEndian.PutUint32(data, kpa)
	return Frame{ID: BrakePressureID, Data: data}
}

// DecodeBrakePressure decodes a frame produced by EncodeBrakePressure.
func DecodeBrakePressure(f Frame) (uint32, error) {
	if f.ID != BrakePressureID {
		return 0, fmt.Errorf("frame %#x is not a brake pressure frame", f.ID)
	}
	if len(f.Data) != BrakePressureSize {
		return 0, fmt.Errorf("brake pressure frame carries %d bytes, want %d", len(f.Data), BrakePressureSize)
	}
	return binary.BigEndian.Uint32(f.Data), nil
}
`

const brakeTestGo = `package telemetry

import "testing"

func TestBrakePressureRoundTrip(t *testing.T) {
	for _, kpa := range []uint32{0, 1, 1013, 4294967295} {
		f := EncodeBrakePressure(kpa)
		if err := f.Validate(); err != nil {
			t.Fatalf("EncodeBrakePressure(%d): %v", kpa, err)
		}
		got, err := DecodeBrakePressure(f)
		if err != nil || got != kpa {
			t.Fatalf("round trip of %d = %d, %v", kpa, got, err)
		}
	}
}

func TestDecodeRejectsForeignFrames(t *testing.T) {
	if _, err := DecodeBrakePressure(Frame{ID: 0x121, Data: make([]byte, 4)}); err == nil {
		t.Fatal("want an error for a foreign id")
	}
	if _, err := DecodeBrakePressure(Frame{ID: BrakePressureID, Data: make([]byte, 2)}); err == nil {
		t.Fatal("want an error for a short payload")
	}
}
`

const publisherGo = `package telemetry

import (
	"errors"
	"time"
)

// ErrTooSoon is returned when a reading is published before one contract
// cycle has elapsed since the previous one.
var ErrTooSoon = errors.New("telemetry: publishing faster than the contracted cycle time")

// Sink receives published frames (the CAN driver in production).
type Sink interface {
	Send(Frame) error
}

// Publisher publishes brake pressure frames no faster than
// BrakePressureCycleMS, keeping telemetry within its bus-load budget.
type Publisher struct {
	sink Sink
	now  func() time.Time
	last time.Time
}

// NewPublisher returns a Publisher writing to sink; now is the clock
// (time.Now when nil).
func NewPublisher(sink Sink, now func() time.Time) *Publisher {
	if now == nil {
		now = time.Now
	}
	return &Publisher{sink: sink, now: now}
}

// Publish sends a reading unless the previous one went out less than one
// cycle ago.
func (p *Publisher) Publish(kpa uint32) error {
	t := p.now()
	if !p.last.IsZero() && t.Sub(p.last) < BrakePressureCycleMS*time.Millisecond {
		return ErrTooSoon
	}
	if err := p.sink.Send(EncodeBrakePressure(kpa)); err != nil {
		return err
	}
	p.last = t
	return nil
}
`

const publisherTestGo = `package telemetry

import (
	"errors"
	"testing"
	"time"
)

type recordingSink struct{ frames []Frame }

func (s *recordingSink) Send(f Frame) error {
	s.frames = append(s.frames, f)
	return nil
}

func TestPublisherRespectsCycleTime(t *testing.T) {
	clock := time.Unix(0, 0)
	sink := &recordingSink{}
	p := NewPublisher(sink, func() time.Time { return clock })
	if err := p.Publish(100); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(5 * time.Millisecond)
	if err := p.Publish(101); !errors.Is(err, ErrTooSoon) {
		t.Fatalf("second publish after 5ms = %v, want ErrTooSoon", err)
	}
	clock = clock.Add(5 * time.Millisecond)
	if err := p.Publish(102); err != nil {
		t.Fatal(err)
	}
	if len(sink.frames) != 2 {
		t.Fatalf("sent %d frames, want 2", len(sink.frames))
	}
}
`

type file struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// code is a code_generation answer that creates files whole: the demo's
// files are all new, so it needs no edits.
func code(notes string, files ...file) map[string]any {
	return map[string]any{"edits": []any{}, "files": files, "deletes": []string{}, "renames": []any{}, "notes": notes}
}

type finding struct {
	File        string `json:"file"`
	Line        int    `json:"line"`
	Severity    string `json:"severity"`
	Criterion   string `json:"criterion"`
	Explanation string `json:"explanation"`
}

type reviewAnswer struct {
	Passed   bool      `json:"passed"`
	Findings []finding `json:"findings"`
}

// Script returns the offline LLM that takes the demo issue from intake to
// complete. Its answers depend only on the request: the first
// specification names a module that does not exist and the corrected one
// answers the validation feedback; the first codec attempt does not
// compile and the fix answers the compiler's diagnostic.
func Script() (*RuleProvider, error) { return script(false) }

// OneSWIScript is Script with a plan of one sub-work-item (the codec): the
// smallest whole pipeline, which the request budget measures.
func OneSWIScript() (*RuleProvider, error) { return script(true) }

func script(oneSWI bool) (*RuleProvider, error) {
	spec := func(module string) map[string]any {
		return map[string]any{
			"summary":          "Add a brake pressure CAN codec and a rate-limited publisher to telemetry.",
			"affected_modules": []map[string]any{{"name": module, "new": false}},
			"design_decisions": []map[string]any{
				{"decision": "Encode kPa as a 4-byte big-endian payload on id 0x120", "rationale": "Matches SWD-IF-CAN-01's BrakePressureFL message."},
				{"decision": "Publisher enforces the 10 ms cycle in software", "rationale": "Keeps telemetry's bus load within the contract without firmware changes."},
			},
			"dependency_changes": []map[string]any{},
			"risks":              []map[string]any{{"risk": "Bus load grows with new messages", "severity": "medium", "mitigation": "Cycle time bound to the contract and checked by CogWorks."}},
			"required_adrs":      []string{},
			"proposed_values":    []map[string]any{{"interface": "SWD-IF-CAN-01", "parameter": "messages.BrakePressureFL.cycle_ms", "value": 10}},
		}
	}
	const (
		codecSWI     = "Implement EncodeBrakePressure and DecodeBrakePressure."
		publisherSWI = "Publish frames no faster than the contract cycle."
		publisherSrc = "func (p *Publisher) Publish"
	)
	plan := []map[string]any{
		{"id": "codec", "title": "Brake pressure frame codec", "description": codecSWI,
			"files": []string{"telemetry/brake.go", "telemetry/brake_test.go"}, "interfaces": []string{"TEL-BRAKE-CODEC"}, "symbols": []string{"BrakePressureID", "BrakePressureSize", "Frame"},
			"tests": "Round trip and rejection of foreign frames.", "depends_on": []string{}},
		{"id": "publisher", "title": "Rate-limited brake pressure publisher", "description": publisherSWI,
			"files": []string{"telemetry/publisher.go", "telemetry/publisher_test.go"}, "interfaces": []string{"TEL-BRAKE-PUBLISH"}, "symbols": []string{"BrakePressureCycleMS", "EncodeBrakePressure"},
			"tests": "A publish inside one cycle is refused.", "depends_on": []string{"codec"}},
	}
	interfaces := []map[string]any{
		{"id": "TEL-BRAKE-CODEC", "name": "Brake pressure frame codec", "file": "telemetry/brake_contract.go", "summary": "EncodeBrakePressure/DecodeBrakePressure over BrakePressureID and BrakePressureSize"},
		{"id": "TEL-BRAKE-PUBLISH", "name": "Rate-limited publisher", "file": "telemetry/brake_contract.go", "summary": "Publisher that honours BrakePressureCycleMS"},
	}
	if oneSWI {
		// Planning covers every declared interface: one item, one.
		plan, interfaces = plan[:1], interfaces[:1]
	}
	noFindings := reviewAnswer{Passed: true, Findings: []finding{}}
	rules := []Rule{
		{Template: "classify", Answer: map[string]any{
			"type": "feature", "affected_modules": []string{"telemetry"},
			"estimated_scope":  map[string]any{"files": 4, "interfaces": 2, "complexity": "medium"},
			"safety_affecting": false,
			"rationale":        "New telemetry encoding and publishing; no change to braking logic.",
		}},
		{Template: "architecture", When: []string{"brake-telemetry"}, Answer: spec("telemetry")},
		{Template: "architecture", Answer: spec("brake-telemetry")},
		{Template: "interface_design", Answer: map[string]any{
			"files":      []file{{"telemetry/brake_contract.go", contractGo}},
			"interfaces": interfaces,
		}},
		{Template: "planning", Answer: map[string]any{"sub_work_items": plan}},
		// The maintainer's review of the codec's PR (review.go).
		{Template: "code_generation", When: []string{codecSWI, revisionMarker}, Answer: brakeDocEdits()},
		{Template: "code_generation", When: []string{publisherSWI},
			Answer: code("Publisher with an injectable clock.", file{"telemetry/publisher.go", publisherGo}, file{"telemetry/publisher_test.go", publisherTestGo})},
		{Template: "code_generation", When: []string{codecSWI, "undefined: payload"},
			Answer: code("Fixed the undefined payload; also validate the payload length.", file{"telemetry/brake.go", brakeGo}, file{"telemetry/brake_test.go", brakeTestGo})},
		{Template: "code_generation", When: []string{codecSWI},
			Answer: code("Codec over a 4-byte big-endian payload.", file{"telemetry/brake.go", brakeGoBroken}, file{"telemetry/brake_test.go", brakeTestGo})},
		{Template: "review_quality", When: []string{publisherSrc}, Answer: noFindings},
		{Template: "review_quality", Answer: reviewAnswer{Passed: true, Findings: []finding{{File: "telemetry/brake.go", Line: 9, Severity: "warning", Criterion: "documentation",
			Explanation: "Say in the doc comment that the payload is big-endian so firmware decoders agree."}}}},
		{Template: "review_architecture", When: []string{publisherSrc}, Answer: reviewAnswer{Passed: true, Findings: []finding{{File: "telemetry/publisher.go", Line: 18, Severity: "informational", Criterion: "constraints",
			Explanation: "The publisher keeps BrakePressureFL at its contracted 10 ms cycle (SWD-IF-CAN-01)."}}}},
		{Template: "review_architecture", Answer: noFindings},
		{Template: "review_security", Answer: noFindings},
	}
	return NewRuleProvider("demo-rules", rules), nil
}
