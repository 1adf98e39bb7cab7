package llm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
)

func TestScriptedServesByTemplateThenSchemaThenWildcard(t *testing.T) {
	t.Parallel()
	s := NewScripted().
		Add("classify", "t1", "t2").
		Add("review", "s1").
		Add(ScriptedWildcard, "w1")
	ctx := context.Background()
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Template: "classify", SchemaName: "classification"}, "t1"},
		{Request{Template: "review_security", SchemaName: "review"}, "s1"},
		{Request{Template: "classify"}, "t2"},
		{Request{Template: "classify"}, "w1"},
	}
	for i, tt := range tests {
		resp, err := s.Complete(ctx, tt.req)
		require.NoError(t, err, "request %d", i)
		assert.Equal(t, tt.want, resp.Text, "request %d", i)
	}
	_, err := s.Complete(ctx, Request{Template: "planning", SchemaName: "plan"})
	var ex *ScriptExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Equal(t, "planning", ex.Template)
	assert.Contains(t, ex.Error(), "script exhausted")
	assert.Len(t, s.Requests(), 5)
	assert.Empty(t, s.Remaining())
}

func TestScriptedTokenCountsUseEstimator(t *testing.T) {
	t.Parallel()
	s := NewScripted().Add("classify", validClassification)
	req := Request{System: "system prompt", Messages: []Message{{Role: RoleUser, Content: "user prompt"}}, Schema: testSchema(), SchemaName: "verdict", Template: "classify"}
	resp, err := s.Complete(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, EstimateRequestTokens(req), resp.InputTokens)
	assert.Equal(t, EstimateTokens(validClassification), resp.OutputTokens)
	assert.Equal(t, "scripted", resp.Model)
}

func TestScriptedInvalidThenValidThroughGateway(t *testing.T) {
	t.Parallel()
	s := NewScripted().Add("classify", invalidComplexity, "not json at all", validClassification)
	g, _, ledger := newTestGateway(s)
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 2, rec.SchemaRetries)
	assert.Equal(t, 3, rec.Attempts)
	assert.Equal(t, "low", out.EstimatedScope.Complexity)
	reqs := s.Requests()
	require.Len(t, reqs, 3)
	assert.Contains(t, reqs[1].Messages[2].Content, "/estimated_scope/complexity")
	assert.Contains(t, reqs[2].Messages[4].Content, "not valid JSON")
	assert.Len(t, ledger.Entries(), 3)
}

func TestScriptedExhaustionIsNotRetried(t *testing.T) {
	t.Parallel()
	s := NewScripted().Add("classify", invalidComplexity)
	g, sr, _ := newTestGateway(s)
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	var ex *ScriptExhaustedError
	require.ErrorAs(t, err, &ex)
	assert.Len(t, s.Requests(), 2)
	assert.Empty(t, sr.Recorded())
}

func TestScriptedErrorAnswer(t *testing.T) {
	t.Parallel()
	boom := &ProviderError{Provider: "scripted", Status: 503, Retryable: true}
	s := NewScripted().AddAnswer("classify", ScriptedAnswer{Err: boom}).Add("classify", validClassification)
	g, sr, _ := newTestGateway(s)
	var out classify.Classification
	rec, err := g.Structured(context.Background(), intakeCall(), &out)
	require.NoError(t, err)
	assert.Equal(t, 2, rec.Attempts)
	assert.Len(t, sr.Recorded(), 1)
}

func TestScriptedAddJSON(t *testing.T) {
	t.Parallel()
	s := NewScripted()
	require.NoError(t, s.AddJSON("classify", map[string]any{"ok": true}))
	require.Error(t, s.AddJSON("classify", make(chan int)))
	resp, err := s.Complete(context.Background(), Request{Template: "classify", Schema: testSchema()})
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(resp.Content))
}
