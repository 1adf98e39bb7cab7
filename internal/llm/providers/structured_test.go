package providers

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
)

// TestAnthropicStructuredOutputFollowsTheTable: a model the table marks
// refuses_forced_tool_choice (Fable 5.1) gets native structured output
// (output_config.format json_schema, no tools, no tool_choice) and its
// text answer is read; other models keep the forced tool. Before, every
// model got the forced tool_choice that Fable 5.1 refuses.
func TestAnthropicStructuredOutputFollowsTheTable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, file string
		native      bool
	}{
		{"claude-fable-5-1", "anthropic_native.sse", true},
		{"claude-fable-5-1-20260901", "anthropic_native.sse", true},
		{"claude-sonnet-4-6", "anthropic_tool.sse", false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			s := newSSEServer(t, sseScript{file: tt.file})
			g, _, _ := newTestGateway(streamProvider("anthropic", s, 0))
			g.Model = tt.model
			var out classify.Classification
			_, err := g.Structured(context.Background(), intakeCall(), &out)
			require.NoError(t, err)
			assert.Equal(t, "bug_fix", string(out.Type))
			_, bodies := s.requests()
			require.Len(t, bodies, 1)
			body := bodies[0]
			if tt.native {
				assert.NotContains(t, body, "tools")
				assert.NotContains(t, body, "tool_choice")
				format := body["output_config"].(map[string]any)["format"].(map[string]any)
				assert.Equal(t, "json_schema", format["type"])
				assert.Contains(t, format["schema"], "properties")
			} else {
				assert.NotContains(t, body, "output_config")
				assert.Equal(t, map[string]any{"type": "tool", "name": "classification"}, body["tool_choice"])
			}
		})
	}
}
