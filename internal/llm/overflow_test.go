package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestContextOverflowSmallerBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		prompt, limit int
		packed, want  int
	}{
		{"the excess and a tenth of the limit cut more than the scaling (150,184)", 215734, 200000, 180000, 144266},
		// 40,000 of context in a 215,000-token prompt: scaling it to
		// 33,488 would leave the prompt over; the excess and margin go.
		{"less the excess when the context is a small part", 215000, 200000, 40000, 5000},
		{"never below zero", 300000, 200000, 40000, 0},
		{"no figures", 0, 0, 180000, 135000},
		{"only the limit", 0, 128000, 100000, 75000},
	}
	for _, tt := range tests {
		e := &ContextOverflowError{PromptTokens: tt.prompt, Limit: tt.limit}
		got := e.SmallerBudget(tt.packed)
		assert.Equal(t, tt.want, got, tt.name)
		assert.Less(t, got, tt.packed, tt.name)
	}
}
