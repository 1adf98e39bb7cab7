package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// fieldError is a validation problem with one criterion field; the loader
// prefixes the field with the criterion's position.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func fieldErrorf(field, format string, args ...any) error {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// params gives typed, validated access to a criterion's inline parameters.
type params map[string]any

// only rejects any parameter not in names, so typos such as "pattern" for
// "patterns" are reported instead of silently ignored.
func (p params) only(names ...string) error {
	var unknown []string
	for k := range p {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	allowed := "none"
	if len(names) > 0 {
		allowed = strings.Join(names, ", ")
	}
	return fieldErrorf(unknown[0], "unknown key (allowed: %s)", allowed)
}

func (p params) has(name string) bool {
	_, ok := p[name]
	return ok
}

func (p params) str(name string, required bool) (string, error) {
	v, ok := p[name]
	if !ok {
		if required {
			return "", fieldErrorf(name, "missing required parameter")
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fieldErrorf(name, "must be a string, got %s", typeName(v))
	}
	if required && s == "" {
		return "", fieldErrorf(name, "must not be empty")
	}
	return s, nil
}

func (p params) strList(name string) ([]string, error) {
	v, ok := p[name]
	if !ok {
		return nil, fieldErrorf(name, "missing required parameter")
	}
	items, ok := asList(v)
	if !ok {
		return nil, fieldErrorf(name, "must be a list of strings, got %s", typeName(v))
	}
	if len(items) == 0 {
		return nil, fieldErrorf(name, "must not be empty")
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, fieldErrorf(fmt.Sprintf("%s[%d]", name, i), "must be a string, got %s", typeName(it))
		}
		out = append(out, s)
	}
	return out, nil
}

func (p params) number(name string) (float64, bool, error) {
	v, ok := p[name]
	if !ok {
		return 0, false, nil
	}
	f, ok := toFloat(v)
	if !ok {
		return 0, false, fieldErrorf(name, "must be a number, got %s", typeName(v))
	}
	return f, true, nil
}

func (p params) integer(name string, required bool) (int, bool, error) {
	f, ok, err := p.number(name)
	if err != nil {
		return 0, false, err
	}
	if !ok {
		if required {
			return 0, false, fieldErrorf(name, "missing required parameter")
		}
		return 0, false, nil
	}
	if f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
		return 0, false, fieldErrorf(name, "must be an integer, got %v", f)
	}
	return int(f), true, nil
}

func (p params) boolean(name string) (bool, bool, error) {
	v, ok := p[name]
	if !ok {
		return false, false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, false, fieldErrorf(name, "must be true or false, got %s", typeName(v))
	}
	return b, true, nil
}

func (p params) regexp(name string, required bool) (*regexp.Regexp, error) {
	s, err := p.str(name, required)
	if err != nil || (s == "" && !required) {
		return nil, err
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fieldErrorf(name, "invalid regular expression %q: %v", s, err)
	}
	return re, nil
}

// asList accepts any slice produced by the TOML, YAML or JSON decoders.
func asList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	case []map[string]any:
		out := make([]any, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

// toFloat converts any numeric value the decoders or callers may produce.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// normalise rewrites decoded values into the shapes encoding/json produces
// (float64 numbers, map[string]any, []any) so values from TOML, YAML, JSON
// and Go callers compare equal when they mean the same thing.
func normalise(v any) any {
	if f, ok := toFloat(v); ok {
		return f
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = normalise(x)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[fmt.Sprint(k)] = normalise(x)
		}
		return out
	}
	if l, ok := asList(v); ok {
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = normalise(x)
		}
		return out
	}
	return v
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any, map[any]any:
		return "a table"
	}
	if _, ok := toFloat(v); ok {
		return "a number"
	}
	if _, ok := asList(v); ok {
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

// render formats a value compactly for reasons and reports.
func render(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%q", t)
	case float64:
		return fmt.Sprintf("%g", t)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
