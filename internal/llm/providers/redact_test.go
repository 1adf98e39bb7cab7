package providers

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/secrets"
)

// A provider's error that quotes the API key (a 401 body, a URL in a
// net/http error) leaves the gateway redacted, still classifiable.
func TestGatewayRedactsProviderErrorsEchoingTheKey(t *testing.T) {
	t.Parallel()
	const key = "sk-proj-gatewayKEY-0123456789"
	b64 := base64.StdEncoding.EncodeToString([]byte(key))
	tests := []struct {
		name     string
		provider func(ws *wireServer) llm.Provider
	}{
		{"anthropic 401", func(ws *wireServer) llm.Provider {
			return &Anthropic{BaseURL: ws.URL, APIKey: key, HTTPClient: ws.Client()}
		}},
		{"openai 401", func(ws *wireServer) llm.Provider {
			return &OpenAI{BaseURL: ws.URL, APIKey: key, HTTPClient: ws.Client()}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWireServer(t, reply{status: http.StatusUnauthorized,
				body: `{"error":{"type":"authentication_error","message":"bad key ` + key + ` aka ` + b64 + `"}}`})
			g, _, _ := newTestGateway(tt.provider(ws))
			g.Redact = secrets.New(key).Redact
			var out classify.Classification
			_, err := g.Structured(context.Background(), intakeCall(), &out)
			require.Error(t, err)
			assert.NotContains(t, err.Error(), key)
			assert.NotContains(t, err.Error(), b64)
			assert.Contains(t, err.Error(), "authentication_error")
			var pe *llm.ProviderError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, http.StatusUnauthorized, pe.Status)
			assert.NotContains(t, pe.Message, key)
		})
	}
}

// A transport error names the URL, which may carry the key as a query
// parameter (some OpenAI-compatible gateways take ?key=).
func TestGatewayRedactsTransportErrorsWithTheKeyInTheURL(t *testing.T) {
	t.Parallel()
	const key = "query-key-0123456789"
	g, _, _ := newTestGateway(&OpenAI{BaseURL: "http://127.0.0.1:1/v1?key=" + key, APIKey: key})
	g.Redact = secrets.New(key).Redact
	var out classify.Classification
	_, err := g.Structured(context.Background(), intakeCall(), &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "127.0.0.1:1", "the error still says where")
	assert.NotContains(t, err.Error(), key)
}
