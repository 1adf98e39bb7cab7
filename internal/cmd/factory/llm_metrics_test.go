package factory_test

import (
	"context"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/metrics"
)

// The gateway the factory builds reports every answered call to the
// metrics, by stage and model.
func TestGatewayReportsLLMUsageByStageAndModel(t *testing.T) {
	m := metrics.New(metrics.Options{})
	f := &factory.Factory{IO: factory.IOStreams{Out: io.Discard, ErrOut: io.Discard}, Getenv: func(string) string { return "" }, Metrics: m}
	p := llm.NewScripted()
	p.Model = "scripted-1"
	p.Add(llm.ScriptedWildcard, `{"answer":"yes"}`, `{"answer":"no"}`)
	g := f.NewGateway(p, t.TempDir(), config.Default(), "scripted-1")
	g.Prompts = llm.RenderFunc(func(string, map[string]any) (string, string, error) {
		return "system", "a question of some length", nil
	})
	g.Budget = llm.Budget{Prices: map[string]llm.Price{"scripted-1": {InputPerMTok: 3, OutputPerMTok: 15}}}
	var out struct {
		Answer string `json:"answer"`
	}
	_, err := g.Structured(context.Background(), llm.Call{Stage: "intake", Template: "t"}, &out)
	require.NoError(t, err)
	_, err = g.Structured(context.Background(), llm.Call{Stage: "planning", Template: "t"}, &out)
	require.NoError(t, err)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		`cogworks_llm_calls_total{model="scripted-1",stage="intake"} 1`,
		`cogworks_llm_calls_total{model="scripted-1",stage="planning"} 1`,
		`cogworks_llm_tokens_total{direction="input",model="scripted-1",stage="intake"}`,
		`cogworks_llm_tokens_total{direction="output",model="scripted-1",stage="intake"}`,
		`cogworks_llm_cost_dollars_total{model="scripted-1",stage="planning"}`,
	} {
		assert.Contains(t, body, want)
	}
	assert.NotContains(t, body, `cogworks_llm_cost_dollars_total{model="scripted-1",stage="planning"} 0`+"\n", "the call was priced")
}
