package llm

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/cogworks/cogworks/classify"
)

func TestSchemaForIsSelfContainedAndStrict(t *testing.T) {
	t.Parallel()
	s, err := SchemaFor(reflect.TypeOf(classify.Classification{}))
	require.NoError(t, err)
	assert.Equal(t, "classification", s.Name)
	raw := string(s.JSON)
	assert.NotContains(t, raw, "$ref")
	assert.NotContains(t, raw, "$defs")
	assert.NotContains(t, raw, "$schema")
	var doc map[string]any
	require.NoError(t, json.Unmarshal(s.JSON, &doc))
	assert.Equal(t, false, doc["additionalProperties"])
	assert.ElementsMatch(t, []any{"type", "affected_modules", "estimated_scope", "safety_affecting", "rationale"}, doc["required"])
	nested := doc["properties"].(map[string]any)["estimated_scope"].(map[string]any)
	assert.Equal(t, false, nested["additionalProperties"])

	_, err = SchemaFor(reflect.TypeOf(""))
	require.ErrorContains(t, err, "not a struct")
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Classification": "classification", "InterfaceDesign": "interface_design",
		"Plan2Items": "plan2_items", "": "output",
	} {
		assert.Equal(t, want, snakeCase(in), in)
	}
}

// TestPropertySchemaErrorsNameTheViolatingField corrupts one random field
// of a valid answer and checks the violation names that field's path.
func TestPropertySchemaErrorsNameTheViolatingField(t *testing.T) {
	t.Parallel()
	s, err := SchemaFor(reflect.TypeOf(classify.Classification{}))
	require.NoError(t, err)
	corruptions := []struct {
		path string
		set  func(m map[string]any, v any)
		bad  []any
	}{
		{"/type", func(m map[string]any, v any) { m["type"] = v }, []any{"chore", 3, nil}},
		{"/affected_modules", func(m map[string]any, v any) { m["affected_modules"] = v }, []any{"brake", 1, map[string]any{}}},
		{"/affected_modules/0", func(m map[string]any, v any) { m["affected_modules"] = []any{v} }, []any{1, true, nil}},
		{"/estimated_scope/files", func(m map[string]any, v any) { m["estimated_scope"].(map[string]any)["files"] = v }, []any{-1, "two", 1.5}},
		{"/estimated_scope/complexity", func(m map[string]any, v any) { m["estimated_scope"].(map[string]any)["complexity"] = v }, []any{"huge", "", 0}},
		{"/safety_affecting", func(m map[string]any, v any) { m["safety_affecting"] = v }, []any{"yes", 0, nil}},
		{"/rationale", func(m map[string]any, v any) { m["rationale"] = v }, []any{42, false, []any{}}},
	}
	rapid.Check(t, func(t *rapid.T) {
		c := corruptions[rapid.IntRange(0, len(corruptions)-1).Draw(t, "field")]
		bad := c.bad[rapid.IntRange(0, len(c.bad)-1).Draw(t, "value")]
		var m map[string]any
		if err := json.Unmarshal([]byte(validClassification), &m); err != nil {
			t.Fatal(err)
		}
		c.set(m, bad)
		doc, _ := json.Marshal(m)
		err := s.Validate(doc)
		se, ok := err.(*SchemaError)
		if !ok {
			t.Fatalf("corrupting %s with %v: want *SchemaError, got %v", c.path, bad, err)
		}
		found := false
		for _, v := range se.Violations {
			if v.Path == c.path || strings.HasPrefix(v.Path, c.path+"/") {
				found = true
			}
		}
		if !found {
			t.Fatalf("corrupting %s with %v: violations %v do not name it", c.path, bad, se.Violations)
		}
	})
	require.NoError(t, s.Validate([]byte(validClassification)))
}
