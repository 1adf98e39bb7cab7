package providers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cogworks/cogworks/internal/llm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProvidersRefuseRetiredModels: a retired model fails before any
// request (before this change it was sent, and answered 404 as "a
// configuration error — check the model name").
func TestProvidersRefuseRetiredModels(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, `{"error":{"type":"not_found_error","message":"model not found"}}`, http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	now := func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }
	for _, p := range []llm.Provider{
		&Anthropic{BaseURL: srv.URL, APIKey: "k", Model: "claude-opus-4-1", HTTPClient: srv.Client(), now: now},
		&OpenAI{BaseURL: srv.URL, APIKey: "k", Model: "o4-mini", HTTPClient: srv.Client(), now: now},
	} {
		_, err := p.Complete(context.Background(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, MaxTokens: 16})
		var re *llm.RetiredModelError
		require.ErrorAs(t, err, &re)
		assert.NotEmpty(t, re.Replacement)
	}
	assert.Zero(t, hits.Load(), "no request is sent for a retired model")
}
