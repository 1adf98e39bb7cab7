package scenario

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONPath(t *testing.T) {
	doc, err := decodeJSON(`{"a":{"b":[10,20,{"c":"x"}]},"odd key":1,"m":{"z":2,"y":1},"list":[{"n":1},{"m":2},{"n":3}]}`)
	require.NoError(t, err)
	tests := []struct {
		expr    string
		want    any
		wantErr string
	}{
		{expr: "$", want: doc},
		{expr: "$.a.b[0]", want: float64(10)},
		{expr: "a.b[1]", want: float64(20)},
		{expr: "$.a.b[-1].c", want: "x"},
		{expr: "$['odd key']", want: float64(1)},
		{expr: `$["a"]["b"][2]["c"]`, want: "x"},
		{expr: "$.m.*", want: []any{float64(1), float64(2)}},
		{expr: "$.list[*].n", want: []any{float64(1), float64(3)}},
		{expr: "$.a.b[*]", want: []any{float64(10), float64(20), map[string]any{"c": "x"}}},
		{expr: "$.nope[*]", wantErr: `member "nope" not found`},
		{expr: "$.a.b[3]", wantErr: "index [3] out of range (length 3)"},
		{expr: "$.a[0]", wantErr: "cannot index a table with [0]"},
		{expr: "$.a.b.c", wantErr: `cannot select member "c" of a list`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			p, err := parseJSONPath(tt.expr)
			require.NoError(t, err)
			got, err := p.eval(doc)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseJSONPath_Rejects(t *testing.T) {
	for expr, want := range map[string]string{
		"":            "empty JSONPath expression",
		"$.":          "expected a member name",
		"$.a[":        "unclosed '['",
		"$.a[?(@.x)]": "unsupported selector",
		"$..a":        "expected a member name",
		"$.a b":       "unexpected ' '",
		"length(@)":   "unexpected '('",
	} {
		t.Run(expr, func(t *testing.T) {
			_, err := parseJSONPath(expr)
			require.Error(t, err)
			assert.Contains(t, err.Error(), want)
		})
	}
}

func decodeJSON(s string) (any, error) {
	src, err := jsonSource(params{})
	if err != nil {
		return nil, err
	}
	doc, _, err := src(Observation{Output: s})
	if err != nil {
		return nil, err
	}
	return normalise(doc), nil
}
