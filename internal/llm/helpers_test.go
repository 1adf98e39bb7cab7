package llm

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cogworks/cogworks/internal/testkit"
)

// The gateway fixtures of the tests that need no provider wire format
// (the scripted provider, the fuzzer, the schema tests). The wire tests
// of the Anthropic and OpenAI providers keep their own in
// internal/llm/providers, which cannot import a test file of this package.

// newTestGateway wires a gateway to p with recorded sleeps and identity
// jitter.
func newTestGateway(p Provider) (*Gateway, *testkit.SleepRecorder, *MemoryLedger) {
	sr := &testkit.SleepRecorder{}
	ledger := NewMemoryLedger(0, 0)
	g := &Gateway{
		Provider: p,
		Prompts:  staticPrompts(),
		Ledger:   ledger,
		Model:    "model-x",
		Sleep:    sr.Sleep,
		Jitter:   func(d time.Duration) time.Duration { return d },
	}
	return g, sr, ledger
}

func intakeCall() Call {
	return Call{Stage: "intake", Template: "classify", Vars: map[string]any{"Title": "Brake light flickers"}}
}

// staticPrompts renders every template to fixed prompts naming the
// template.
func staticPrompts() Renderer {
	return RenderFunc(func(name string, vars map[string]any) (string, string, error) {
		return "You are a careful assistant for " + name + ".", fmt.Sprintf("Classify: %v", vars["Title"]), nil
	})
}

const validClassification = `{"type":"bug_fix","affected_modules":["brake"],"estimated_scope":{"files":2,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"small fix"}`

const invalidComplexity = `{"type":"bug_fix","affected_modules":["brake"],"estimated_scope":{"files":2,"interfaces":0,"complexity":"huge"},"safety_affecting":false,"rationale":"small fix"}`

func testSchema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`)
}
