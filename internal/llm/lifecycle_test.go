package llm

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestRetirement(t *testing.T) {
	t.Parallel()
	table, err := BuiltinModelTable()
	require.NoError(t, err)
	tests := []struct {
		name, model, now string
		warn, retired    bool
		mention          string
	}{
		{"retired alias", "claude-sonnet-4-20250514", "2026-11-27", false, true, "claude-sonnet-5"},
		{"retired on the day", "gpt-5", "2026-12-11", false, true, "gpt-5.6-terra"},
		{"retiring soon", "gpt-4.1", "2026-11-27", true, false, "2027-01-14"},
		{"retiring soon names the replacement", "gpt-4.1-2025-04-14", "2026-11-27", true, false, "gpt-5.6-luna"},
		{"current model", "claude-sonnet-5", "2026-11-27", false, false, ""},
		{"unknown model", "qwen3-coder:30b", "2026-11-27", false, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			warn, err := table.Retirement(tt.model, day(tt.now))
			assert.Equal(t, tt.warn, warn != "", warn)
			var re *RetiredModelError
			assert.Equal(t, tt.retired, err != nil && assert.ErrorAs(t, err, &re))
			msg := warn
			if err != nil {
				msg = err.Error()
			}
			assert.Contains(t, msg, tt.mention)
		})
	}
}
