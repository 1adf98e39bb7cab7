package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/github"
)

// Every adapter says "a later invocation may get past this" through the
// one interface the engine classifies by. The LLM gateway's ProviderError
// is checked against the same method set in package llm
// (TestProviderFailuresAreClassified), so that this test binary does not link the
// providers' SDKs.
var (
	_ transient = (*github.APIError)(nil)
	_ transient = (*github.RateLimitError)(nil)
	_ transient = (*github.NetworkError)(nil)
	_ transient = (*domain.Error)(nil)
)

func TestIsTransientClassifiesEveryAdapterThroughOneInterface(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"github 503", &github.APIError{Status: 503}, true},
		{"github 429", &github.APIError{Status: 429}, true},
		{"github 404", &github.APIError{Status: 404}, false},
		{"github rate limit", &github.RateLimitError{}, true},
		{"github network", &github.NetworkError{Err: errors.New("reset")}, true},
		{"domain tool failure", &domain.Error{Code: domain.CodeToolFailed, Recoverable: true}, true},
		{"domain contract", &domain.Error{Code: domain.CodeUnsupportedMethod, Recoverable: true}, false},
		{"wrapped", fmt.Errorf("stage x: %w", &github.NetworkError{Err: errors.New("dns")}), true},
		{"context canceled", context.Canceled, true},
		{"plain", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isTransient(tt.err))
		})
	}
}
