package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

// OutputSchema is the JSON Schema generated from a Go output struct, with
// its compiled validator.
type OutputSchema struct {
	// Name is the schema's name sent to providers (snake_case type name).
	Name string
	// JSON is the self-contained schema document sent to providers (no
	// $ref, no $schema), in the form OpenAI's strict mode accepts:
	// optional fields are required but nullable.
	JSON      json.RawMessage
	validator *validator.Schema
}

// Violation is one way an answer fails its schema.
type Violation struct {
	// Path is the JSON pointer of the offending value ("" for the root),
	// e.g. /estimated_scope/complexity.
	Path    string
	Message string
}

// String renders the violation as "<path>: <message>".
func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "/"
	}
	return p + ": " + v.Message
}

// SchemaError reports an answer that does not satisfy its schema (or is not
// structured output at all). The gateway feeds Violations back to the model.
type SchemaError struct {
	Schema     string
	Violations []Violation
}

// Error implements error.
func (e *SchemaError) Error() string {
	parts := make([]string, len(e.Violations))
	for i, v := range e.Violations {
		parts[i] = v.String()
	}
	return fmt.Sprintf("answer does not match schema %q: %s", e.Schema, strings.Join(parts, "; "))
}

// schemaCache memoises OutputSchema per Go type. It belongs to a Gateway.
type schemaCache struct {
	mu sync.Mutex
	m  map[reflect.Type]*OutputSchema
}

func (c *schemaCache) get(t reflect.Type) (*OutputSchema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.m[t]; ok {
		return s, nil
	}
	s, err := SchemaFor(t)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[reflect.Type]*OutputSchema{}
	}
	c.m[t] = s
	return s, nil
}

// SchemaFor generates the output schema for a struct type (or pointer to
// one) with invopop/jsonschema: additionalProperties is false, every
// definition is inlined so providers get a self-contained schema, and
// every field is required — one tagged omitempty as a union with null,
// because strict structured output admits no optional properties.
func SchemaFor(t reflect.Type) (*OutputSchema, error) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("output schema: %v is not a struct type", t)
	}
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	s := r.ReflectFromType(t)
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("output schema for %s: encode: %w", t, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("output schema for %s: decode: %w", t, err)
	}
	delete(doc, "$schema")
	delete(doc, "$id")
	var local map[string]any
	if err := json.Unmarshal(raw, &local); err != nil {
		return nil, fmt.Errorf("output schema for %s: decode: %w", t, err)
	}
	delete(local, "$schema")
	delete(local, "$id")
	// Providers get the strict-mode form; the local validator the same
	// shape with every constraint kept.
	makeStrict(doc, true)
	makeStrict(local, false)
	wire, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("output schema for %s: encode: %w", t, err)
	}
	clean, err := json.Marshal(local)
	if err != nil {
		return nil, fmt.Errorf("output schema for %s: encode: %w", t, err)
	}
	name := snakeCase(t.Name())
	c := validator.NewCompiler()
	c.DefaultDraft(validator.Draft2020)
	loc := "cogworks://schemas/" + name + ".json"
	parsed, err := validator.UnmarshalJSON(bytes.NewReader(clean))
	if err != nil {
		return nil, fmt.Errorf("output schema for %s: %w", t, err)
	}
	if err := c.AddResource(loc, parsed); err != nil {
		return nil, fmt.Errorf("output schema for %s: add resource: %w", t, err)
	}
	v, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("output schema for %s: compile: %w", t, err)
	}
	return &OutputSchema{Name: name, JSON: wire, validator: v}, nil
}

// Validate checks a JSON document against the schema. It returns a
// *SchemaError listing every violation with its field path, or nil.
func (s *OutputSchema) Validate(doc []byte) error {
	inst, err := validator.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return &SchemaError{Schema: s.Name, Violations: []Violation{{Message: fmt.Sprintf("answer is not valid JSON: %v", err)}}}
	}
	err = s.validator.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *validator.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("validate against %q: %w", s.Name, err)
	}
	return &SchemaError{Schema: s.Name, Violations: flatten(ve)}
}

// flatten turns the validator's error tree into one violation per failing
// leaf, sorted by path for deterministic feedback.
func flatten(ve *validator.ValidationError) []Violation {
	out := ve.BasicOutput()
	seen := map[string]bool{}
	var vs []Violation
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		msg := u.Error.String()
		if strings.HasPrefix(msg, "validation failed") || msg == "" {
			continue
		}
		key := u.InstanceLocation + "\x00" + msg
		if seen[key] {
			continue
		}
		seen[key] = true
		vs = append(vs, Violation{Path: u.InstanceLocation, Message: msg})
	}
	if len(vs) == 0 {
		vs = []Violation{{Path: jsonPointer(ve.InstanceLocation), Message: ve.Error()}}
	}
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Path < vs[j].Path })
	return vs
}

func jsonPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

// snakeCase turns a Go type name into a provider-safe schema name
// ("InterfaceDesign" ⇒ "interface_design").
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			if i > 0 && (isLowerOrDigit(s[i-1])) {
				b.WriteByte('_')
			}
			b.WriteRune(r + ('a' - 'A'))
		case isLowerOrDigit(byte(r)) || r == '_' || r == '-':
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "output"
	}
	out := b.String()
	if len(out) > 64 {
		out = out[:64]
	}
	return out
}

func isLowerOrDigit(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') }
