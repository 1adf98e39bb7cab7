package llm

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// OpenAI's structured outputs in strict mode accept a subset of JSON
// Schema (platform.openai.com/docs/guides/structured-outputs, "Supported
// schemas"): the root is an object, every object lists all of its
// properties in required and sets additionalProperties false, optional
// fields are expressed as a union with null, and only these keywords may
// appear. Anything else is answered with HTTP 400 before the model runs.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"items": true, "enum": true, "const": true, "anyOf": true, "description": true,
	"$defs": true, "$ref": true,
	"pattern": true, "format": true,
	"multipleOf": true, "maximum": true, "exclusiveMaximum": true, "minimum": true, "exclusiveMinimum": true,
	"minItems": true, "maxItems": true,
}

// strictFormats are the string formats strict mode supports.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// Limits of strict mode.
const (
	strictMaxDepth      = 10
	strictMaxProperties = 5000
	strictMaxEnumValues = 1000
)

// StrictViolations lists every way schema breaks OpenAI's strict-mode
// rules, each naming the JSON pointer of the offending subschema; nil means
// the schema is accepted.
func StrictViolations(schema json.RawMessage) []string {
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		return []string{fmt.Sprintf("/: not JSON: %v", err)}
	}
	root, ok := doc.(map[string]any)
	if !ok {
		return []string{"/: root is not a schema object"}
	}
	var out []string
	if root["type"] != "object" {
		out = append(out, fmt.Sprintf("/: root type must be \"object\", got %v", root["type"]))
	}
	if _, ok := root["anyOf"]; ok {
		out = append(out, "/: root must not be anyOf")
	}
	c := strictChecker{}
	c.walk("", root, 1)
	out = append(out, c.problems...)
	if c.properties > strictMaxProperties {
		out = append(out, fmt.Sprintf("/: %d properties, more than %d", c.properties, strictMaxProperties))
	}
	if c.enumValues > strictMaxEnumValues {
		out = append(out, fmt.Sprintf("/: %d enum values, more than %d", c.enumValues, strictMaxEnumValues))
	}
	return out
}

type strictChecker struct {
	problems   []string
	properties int
	enumValues int
}

func (c *strictChecker) add(path, format string, args ...any) {
	if path == "" {
		path = "/"
	}
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func (c *strictChecker) walk(path string, s map[string]any, depth int) {
	if depth > strictMaxDepth {
		c.add(path, "nested deeper than %d levels", strictMaxDepth)
		return
	}
	for _, k := range sortedKeys(s) {
		if !strictKeywords[k] {
			c.add(path, "keyword %q is not supported in strict mode", k)
		}
	}
	if f, ok := s["format"].(string); ok && !strictFormats[f] {
		c.add(path, "format %q is not supported in strict mode", f)
	}
	if e, ok := s["enum"].([]any); ok {
		c.enumValues += len(e)
	}
	if hasType(s, "object") {
		props, _ := s["properties"].(map[string]any)
		c.properties += len(props)
		if ap, ok := s["additionalProperties"].(bool); !ok || ap {
			c.add(path, "object must set additionalProperties to false")
		}
		req := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, v := range r {
				if name, ok := v.(string); ok {
					req[name] = true
				}
			}
		}
		for _, name := range sortedKeys(props) {
			if !req[name] {
				c.add(path, "property %q is not in required (strict mode needs every property there; make it nullable instead)", name)
			}
			if sub, ok := props[name].(map[string]any); ok {
				c.walk(path+"/properties/"+pointerEscape(name), sub, depth+1)
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		c.walk(path+"/items", items, depth+1)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for i, a := range anyOf {
			if sub, ok := a.(map[string]any); ok {
				c.walk(fmt.Sprintf("%s/anyOf/%d", path, i), sub, depth)
			}
		}
	}
	if defs, ok := s["$defs"].(map[string]any); ok {
		for _, name := range sortedKeys(defs) {
			if sub, ok := defs[name].(map[string]any); ok {
				c.walk(path+"/$defs/"+pointerEscape(name), sub, depth)
			}
		}
	}
}

// makeStrict rewrites a generated schema in place so strict mode accepts
// it: every property becomes required, an optional one (absent from the
// original required list) becomes nullable, and keywords strict mode does
// not know are moved into the description, where the model still reads
// them, when wire is set. The local validator's copy (wire false) keeps
// those keywords so they are still enforced, with feedback, and keeps
// optional properties optional (but nullable).
func makeStrict(s map[string]any, wire bool) {
	for _, k := range sortedKeys(s) {
		if !wire {
			break
		}
		if strictKeywords[k] {
			continue
		}
		if k == "title" || k == "default" || k == "examples" || k == "$comment" {
			delete(s, k)
			continue
		}
		note := fmt.Sprintf("%s: %v", k, jsonText(s[k]))
		if d, ok := s["description"].(string); ok && d != "" {
			s["description"] = d + " (" + note + ")"
		} else {
			s["description"] = "(" + note + ")"
		}
		delete(s, k)
	}
	if f, ok := s["format"].(string); ok && !strictFormats[f] && wire {
		delete(s, "format")
	}
	if props, ok := s["properties"].(map[string]any); ok {
		req := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, v := range r {
				if name, ok := v.(string); ok {
					req[name] = true
				}
			}
		}
		all := make([]any, 0, len(props))
		for _, name := range sortedKeys(props) {
			sub, ok := props[name].(map[string]any)
			if !ok {
				continue
			}
			makeStrict(sub, wire)
			if !req[name] {
				nullable(sub)
			}
			all = append(all, name)
		}
		// Keep the original order of required names first: it is the
		// order the generator gave the fields, which models follow.
		ordered := []any{}
		if r, ok := s["required"].([]any); ok {
			ordered = append(ordered, r...)
		}
		for _, n := range all {
			if !slices.Contains(ordered, n) {
				ordered = append(ordered, n)
			}
		}
		// The local validator keeps optional fields optional: providers
		// without strict decoding (Anthropic tool input, local servers) may
		// leave them out, and Go decodes absent and null alike.
		if wire {
			s["required"] = ordered
		}
		s["additionalProperties"] = false
	}
	if items, ok := s["items"].(map[string]any); ok {
		makeStrict(items, wire)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for _, a := range anyOf {
			if sub, ok := a.(map[string]any); ok {
				makeStrict(sub, wire)
			}
		}
	}
}

// nullable lets s also be null, the strict-mode spelling of "optional".
func nullable(s map[string]any) {
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
	case []any:
		if !slices.Contains(t, any("null")) {
			s["type"] = append(t, "null")
		}
	default:
		if anyOf, ok := s["anyOf"].([]any); ok {
			s["anyOf"] = append(anyOf, map[string]any{"type": "null"})
		}
	}
	if e, ok := s["enum"].([]any); ok && !slices.Contains(e, nil) {
		s["enum"] = append(e, nil)
	}
}

func hasType(s map[string]any, want string) bool {
	switch t := s["type"].(type) {
	case string:
		return t == want
	case []any:
		return slices.Contains(t, any(want))
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
