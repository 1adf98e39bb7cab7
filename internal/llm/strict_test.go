package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type strictSample struct {
	Name     string        `json:"name" jsonschema:"minLength=1"`
	Values   []float64     `json:"values,omitempty"`
	Kind     string        `json:"kind,omitempty" jsonschema:"enum=a,enum=b"`
	Nested   *strictNested `json:"nested,omitempty"`
	Required strictNested  `json:"required"`
}

type strictNested struct {
	Note string `json:"note,omitempty"`
}

func TestSchemaForPassesStrictMode(t *testing.T) {
	s, err := SchemaFor(reflect.TypeOf(strictSample{}))
	require.NoError(t, err)
	assert.Empty(t, StrictViolations(s.JSON), string(s.JSON))
}

func TestOptionalFieldsAreNullableAndStillOptionalInGo(t *testing.T) {
	s, err := SchemaFor(reflect.TypeOf(strictSample{}))
	require.NoError(t, err)
	// The model answers null for fields it has nothing for.
	doc := `{"name":"x","values":null,"kind":null,"nested":null,"required":{"note":null}}`
	require.NoError(t, s.Validate([]byte(doc)))
	var out strictSample
	require.NoError(t, json.Unmarshal([]byte(doc), &out))
	assert.Nil(t, out.Values)
	assert.Nil(t, out.Nested)
	// A missing required field is still a violation locally; a missing
	// optional one is not (Anthropic's tool input is not strict).
	assert.Error(t, s.Validate([]byte(`{"values":null,"kind":null,"nested":null,"required":{"note":null}}`)))
	assert.NoError(t, s.Validate([]byte(`{"name":"x","required":{}}`)))
}

func TestUnsupportedKeywordsMoveToDescriptionButStayEnforced(t *testing.T) {
	s, err := SchemaFor(reflect.TypeOf(strictSample{}))
	require.NoError(t, err)
	assert.NotContains(t, string(s.JSON), `"minLength"`)
	assert.Contains(t, string(s.JSON), `minLength: 1`)
	err = s.Validate([]byte(`{"name":"","values":null,"kind":null,"nested":null,"required":{"note":null}}`))
	var se *SchemaError
	require.ErrorAs(t, err, &se, "minLength is still checked locally")
}

func TestStrictViolationsFindsEachRule(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   string
	}{
		{"root not object", `{"type":"array","items":{"type":"string"}}`, `root type must be "object"`},
		{"optional property", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`, `property "b" is not in required`},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, "additionalProperties to false"},
		{"nested open object", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"array","items":{"type":"object","properties":{}}}}}`, "/properties/a/items: object must set"},
		{"unsupported keyword", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","minLength":1}}}`, `keyword "minLength"`},
		{"unsupported format", `{"type":"object","additionalProperties":false,"required":["a"],"properties":{"a":{"type":"string","format":"uri"}}}`, `format "uri"`},
		{"root anyOf", `{"type":"object","anyOf":[{"type":"object"}]}`, "root must not be anyOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := StrictViolations(json.RawMessage(tt.schema))
			require.NotEmpty(t, got)
			joined := ""
			for _, g := range got {
				joined += g + "\n"
			}
			assert.Contains(t, joined, tt.want)
		})
	}
}

func TestSplitCacheBreak(t *testing.T) {
	tests := []struct {
		in, out string
		at      int
	}{
		{"no mark", "no mark", 0},
		{"shared\x1etail", "sharedtail", 6},
		{"a\x1eb\x1ec", "abc", 2},
		{"all shared\x1e", "all shared", 10},
	}
	for _, tt := range tests {
		out, at := splitCacheBreak(tt.in)
		assert.Equal(t, tt.out, out, "%q", tt.in)
		assert.Equal(t, tt.at, at, "%q", tt.in)
	}
}
