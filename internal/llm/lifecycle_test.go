package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
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
	now := func() time.Time { return day("2026-11-27") }
	for _, p := range []Provider{
		&Anthropic{BaseURL: srv.URL, APIKey: "k", Model: "claude-opus-4-1", HTTPClient: srv.Client(), now: now},
		&OpenAI{BaseURL: srv.URL, APIKey: "k", Model: "o4-mini", HTTPClient: srv.Client(), now: now},
	} {
		_, err := p.Complete(context.Background(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, MaxTokens: 16})
		var re *RetiredModelError
		require.ErrorAs(t, err, &re)
		assert.NotEmpty(t, re.Replacement)
	}
	assert.Zero(t, hits.Load(), "no request is sent for a retired model")
}
