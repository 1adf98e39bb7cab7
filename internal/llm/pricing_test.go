package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLookupPrice(t *testing.T) {
	t.Parallel()
	prices := BuiltinPrices()
	tests := []struct {
		model   string
		in, out float64
		priced  bool
	}{
		{"claude-sonnet-4-5", 3, 15, true},
		{"claude-sonnet-4-5-20250929", 3, 15, true},
		{"claude-sonnet-4-6", 3, 15, true},
		{"claude-opus-4-1-20250805", 15, 75, true},
		{"claude-opus-4-5-20251101", 5, 25, true},
		// Was priced as claude-opus-4 (15/75) by family prefix.
		{"claude-opus-4-6", 5, 25, true},
		{"claude-opus-4-7", 5, 25, true},
		{"gpt-4o-2024-08-06", 2.50, 10, true},
		{"gpt-4o-mini-2024-07-18", 0.15, 0.60, true},
		{"gpt-5-mini", 0.25, 2, true},
		{"gpt-5.4", 2.5, 15, true},
		{"openai/gpt-5.4", 2.5, 15, true},
		{"llama3.1:8b", 0, 0, false},
		{"gpt-4oo", 0, 0, false},
		{"claude-opus-4-9", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			got, ok := LookupPrice(prices, tt.model)
			assert.Equal(t, tt.priced, ok)
			assert.Equal(t, tt.in, got.InputPerMTok)
			assert.Equal(t, tt.out, got.OutputPerMTok)
		})
	}
}

func TestBuiltinPricesAreFreshAndPositive(t *testing.T) {
	t.Parallel()
	a := BuiltinPrices()
	a["claude-sonnet-4-5"] = Price{}
	b := BuiltinPrices()
	assert.Equal(t, 3.0, b["claude-sonnet-4-5"].InputPerMTok, "callers may change their copy")
	assert.Equal(t, 0.3, b["claude-sonnet-4-5"].CacheReadPerMTok)
	assert.Equal(t, 3.75, b["claude-sonnet-4-5"].CacheWritePerMTok)
	for name, p := range b {
		assert.Positive(t, p.InputPerMTok, name)
		assert.GreaterOrEqual(t, p.OutputPerMTok, p.InputPerMTok, name)
	}
}
