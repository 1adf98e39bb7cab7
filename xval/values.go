package xval

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// epsilon is the relative tolerance used when comparing numbers, so that
// values that went through decimal text and back still compare equal.
const epsilon = 1e-9

// numEqual reports whether a and b are equal within a tiny relative
// epsilon (absolute for values near zero).
func numEqual(a, b float64) bool {
	scale := math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
	return math.Abs(a-b) <= epsilon*scale
}

// toFloat converts a number-like value to float64. Strings are accepted
// when they parse as a decimal, hexadecimal, octal or binary number, since
// constants extracted from source code may arrive as text.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		s := strings.ReplaceAll(strings.TrimSpace(x), "_", "")
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(i), true
		}
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
	}
	return 0, false
}

// normalise turns decoded scalars into float64, string or bool.
func normalise(v any) any {
	switch x := v.(type) {
	case string, bool, float64:
		return x
	}
	if f, ok := toFloat(v); ok {
		return f
	}
	return v
}

// typeName names a value's JSON type for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, int, int64, int32, uint64, uint32, json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// scalarEqual compares two scalars: numbers numerically (a numeric string
// matches a number), strings and bools exactly.
func scalarEqual(want, got any) bool {
	if wf, ok := want.(float64); ok {
		gf, ok := toFloat(got)
		return ok && numEqual(wf, gf)
	}
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && g == w
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	}
	return false
}

func formatNum(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	if f, ok := toFloat(v); ok {
		return formatNum(f)
	}
	return fmt.Sprintf("%v", v)
}

func joinQuoted(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
