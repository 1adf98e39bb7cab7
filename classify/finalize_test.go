package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/invopop/jsonschema"
	sjsonschema "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample(modules ...string) Classification {
	return Classification{
		Type:            TypeFeature,
		AffectedModules: modules,
		EstimatedScope:  Scope{Files: 3, Interfaces: 1, Complexity: "low"},
		Rationale:       "small change",
	}
}

func TestAssertCLASS002_SafetyOverrideApplies(t *testing.T) {
	safety := []string{"brake", "firmware/motor"}
	tests := []struct {
		name    string
		modules []string
	}{
		{"exact match", []string{"telemetry", "brake"}},
		{"nested under", []string{"brake/abs"}},
		{"deeply nested", []string{"firmware/motor/pwm"}},
		{"trailing slash and dot prefix", []string{"./brake/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := sample(tt.modules...)
			require.False(t, in.SafetyAffecting)
			out := Finalize(in, safety)
			assert.True(t, out.SafetyAffecting)
			assert.False(t, in.SafetyAffecting, "input must not be modified")
		})
	}
}

func TestAssertCLASS003_NoOverrideWithoutMatch(t *testing.T) {
	safety := []string{"brake", "firmware/motor"}
	tests := []struct {
		name    string
		modules []string
	}{
		{"unrelated", []string{"telemetry", "ui"}},
		{"shared prefix is not nesting", []string{"brakes", "firmware/motorola"}},
		{"parent of safety module", []string{"firmware"}},
		{"no modules", nil},
		{"empty module name", []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := Finalize(sample(tt.modules...), safety)
			assert.False(t, out.SafetyAffecting)
		})
	}
}

func TestFinalizeKeepsLLMSafetyVerdict(t *testing.T) {
	in := sample("ui")
	in.SafetyAffecting = true
	assert.True(t, Finalize(in, nil).SafetyAffecting)
}

func TestAssertCLASS004_ScopeOverThresholdEscalates(t *testing.T) {
	th := Thresholds{MaxFiles: 40, MaxInterfaces: 10}
	tests := []struct {
		name     string
		files    int
		ifaces   int
		escalate bool
		contains string
	}{
		{"within", 40, 10, false, ""},
		{"files over", 41, 1, true, "estimated_scope.files 41 exceeds max_scope_files 40"},
		{"interfaces over", 1, 11, true, "estimated_scope.interfaces 11 exceeds max_scope_interfaces 10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := sample("ui")
			c.EstimatedScope.Files, c.EstimatedScope.Interfaces = tt.files, tt.ifaces
			esc := CheckScope(c, th)
			if !tt.escalate {
				assert.Nil(t, esc)
				return
			}
			require.NotNil(t, esc)
			assert.Equal(t, ReasonScopeExceeded, esc.Code)
			assert.Contains(t, esc.Reason, tt.contains)
			var target *escalation.Error
			require.True(t, errors.As(error(esc), &target))
		})
	}
	assert.Nil(t, CheckScope(Classification{EstimatedScope: Scope{Files: 1000}}, Thresholds{}), "zero thresholds mean no limit")
}

func TestValidateNamesField(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Classification)
		field string
	}{
		{"bad type", func(c *Classification) { c.Type = "rewrite" }, "type:"},
		{"negative files", func(c *Classification) { c.EstimatedScope.Files = -1 }, "estimated_scope.files"},
		{"negative interfaces", func(c *Classification) { c.EstimatedScope.Interfaces = -2 }, "estimated_scope.interfaces"},
		{"bad complexity", func(c *Classification) { c.EstimatedScope.Complexity = "huge" }, "estimated_scope.complexity"},
		{"empty module", func(c *Classification) { c.AffectedModules = []string{"a", " "} }, "affected_modules[1]"},
		{"empty rationale", func(c *Classification) { c.Rationale = "" }, "rationale"},
	}
	require.NoError(t, Validate(sample("ui")))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := sample("ui")
			tt.edit(&c)
			err := Validate(c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

// TestAssertCLASS001_SchemaAcceptsValidOutput generates the classification
// schema from the Go struct (as the LLM gateway does) and checks it accepts
// a well-formed output and rejects malformed ones, naming the field.
func TestAssertCLASS001_SchemaAcceptsValidOutput(t *testing.T) {
	schema := compileSchema(t)
	good := `{"type":"bug_fix","affected_modules":["brake/abs"],"estimated_scope":{"files":2,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"fix"}`
	require.NoError(t, schema.Validate(decode(t, good)))

	bad := []struct {
		name, doc, field string
	}{
		{"bad enum", `{"type":"rewrite","affected_modules":[],"estimated_scope":{"files":2,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"x"}`, "/type"},
		{"missing field", `{"type":"feature","affected_modules":[],"estimated_scope":{"files":2,"interfaces":0,"complexity":"low"},"rationale":"x"}`, "safety_affecting"},
		{"negative files", `{"type":"feature","affected_modules":[],"estimated_scope":{"files":-1,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"x"}`, "/estimated_scope/files"},
		{"wrong type", `{"type":"feature","affected_modules":"brake","estimated_scope":{"files":1,"interfaces":0,"complexity":"low"},"safety_affecting":false,"rationale":"x"}`, "/affected_modules"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := schema.Validate(decode(t, tt.doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

func compileSchema(t *testing.T) *sjsonschema.Schema {
	t.Helper()
	r := &jsonschema.Reflector{}
	raw, err := json.Marshal(r.Reflect(&Classification{}))
	require.NoError(t, err)
	doc, err := sjsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := sjsonschema.NewCompiler()
	require.NoError(t, c.AddResource("classification.json", doc))
	s, err := c.Compile("classification.json")
	require.NoError(t, err)
	return s
}

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := sjsonschema.UnmarshalJSON(bytes.NewReader([]byte(s)))
	require.NoError(t, err)
	return v
}
