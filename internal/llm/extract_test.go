package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"a":1}`, `{"a":1}`, true},
		{"  {\"a\":1}\n", `{"a":1}`, true},
		{"```json\n{\"a\":1}\n```", `{"a":1}`, true},
		{"Here: ```{\"a\":1}``` done", `{"a":1}`, true},
		{"<think>{\"a\":2}</think>{\"a\":1}", `{"a":1}`, true},
		{"<think>never closed {\"a\":2}", "", false},
		{"no json here", "", false},
		{`{"a":1`, "", false},
		{`[1,2]`, "", false},
	}
	for _, tt := range tests {
		got, ok := ExtractJSON(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		if tt.ok {
			assert.JSONEq(t, tt.want, string(got), tt.in)
		}
	}
}
