package escalation_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/escalation"
)

func TestErrorMessageAndErrorsAs(t *testing.T) {
	tests := []struct {
		name string
		err  *escalation.Error
		want string
	}{
		{"reason only", &escalation.Error{Reason: "cost budget exceeded"}, "escalation: cost budget exceeded"},
		{"with code", &escalation.Error{Code: "scope_exceeded", Reason: "files 90 exceeds 40"}, "escalation (scope_exceeded): files 90 exceeds 40"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wrapped := fmt.Errorf("stage intake: %w", tt.err)
			var got *escalation.Error
			require.True(t, errors.As(wrapped, &got))
			assert.Same(t, tt.err, got)
			assert.Equal(t, tt.want, got.Error())
		})
	}
}
