package extserver

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// TestHandlerAnswersTheWire pins every answer of the shared server, byte
// for byte: both built-in services are served by it.
func TestHandlerAnswersTheWire(t *testing.T) {
	cause := errors.New("no sandbox")
	h := NewHandler(Config{
		Methods: map[string]Method{
			domain.MethodHandshake: func(context.Context, domain.Request) (any, error) { return map[string]string{"name": "t"}, nil },
			domain.MethodValidate: func(_ context.Context, req domain.Request) (any, error) {
				switch req.RequestID {
				case "plain":
					return nil, errors.New("boom")
				case "timeout":
					return nil, Errorf(domain.CodeTimeout, "took %s", "long")
				case "typed":
					return nil, &Error{Code: domain.CodeToolFailed, Message: cause.Error(), Cause: cause}
				case "unencodable":
					return func() {}, nil
				}
				return []int{1}, nil
			},
			domain.MethodSimulate: func(context.Context, domain.Request) (any, error) { return nil, nil }, // not declared
		},
		Capabilities: []string{domain.MethodHandshake, domain.MethodValidate, domain.MethodRepoMap},
	})
	v := domain.APIVersion
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"health", http.MethodGet, domain.HealthPath, "", 200, `{"status":"ok"}`},
		{"no route", http.MethodPost, "/other", "", 400, `{"request_id":"","status":"error","error":{"code":"invalid_request","message":"no Extension API route /other","recoverable":false}}` + "\n"},
		{"undeclared method", http.MethodPost, domain.PathPrefix + "simulate", "", 404, `{"request_id":"","status":"error","error":{"code":"unsupported_method","message":"method \"simulate\" is not supported; capabilities: handshake, validate, repo_map","recoverable":false}}` + "\n"},
		{"GET", http.MethodGet, domain.PathPrefix + "validate", "", 400, `{"request_id":"","status":"error","error":{"code":"invalid_request","message":"/extension/v1/validate requires POST, got GET","recoverable":false}}` + "\n"},
		{"malformed", http.MethodPost, domain.PathPrefix + "validate", "{", 400, `{"request_id":"","status":"error","error":{"code":"invalid_request","message":"malformed request envelope: unexpected end of JSON input","recoverable":false}}` + "\n"},
		{"no request id", http.MethodPost, domain.PathPrefix + "validate", `{"method":"validate"}`, 400, `{"request_id":"","status":"error","error":{"code":"invalid_request","message":"field request_id is required","recoverable":false}}` + "\n"},
		{"method mismatch", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"r","method":"simulate"}`, 400, `{"request_id":"r","status":"error","error":{"code":"invalid_request","message":"field method \"simulate\" does not match the route's method \"validate\"","recoverable":false}}` + "\n"},
		{"no api version", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"r","method":"validate"}`, 400, `{"request_id":"r","status":"error","error":{"code":"invalid_request","message":"field api_version is required","recoverable":false}}` + "\n"},
		{"incompatible version", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"r","method":"validate","api_version":"99.0.0"}`, 400, `{"request_id":"r","status":"error","error":{"code":"api_version_mismatch","message":"request api_version 99.0.0 is incompatible with the service's ` + v + `","recoverable":false}}` + "\n"},
		{"handshake takes any version", http.MethodPost, domain.PathPrefix + "handshake", `{"request_id":"r","method":"handshake","api_version":"99.0.0"}`, 200, `{"request_id":"r","status":"ok","result":{"name":"t"}}` + "\n"},
		{"ok", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"r","method":"validate","api_version":"` + v + `"}`, 200, `{"request_id":"r","status":"ok","result":[1]}` + "\n"},
		{"plain error is internal", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"plain","method":"validate","api_version":"` + v + `"}`, 500, `{"request_id":"plain","status":"error","error":{"code":"internal_error","message":"boom","recoverable":true}}` + "\n"},
		{"coded error keeps its status", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"timeout","method":"validate","api_version":"` + v + `"}`, 504, `{"request_id":"timeout","status":"error","error":{"code":"timeout","message":"took long","recoverable":true}}` + "\n"},
		{"cause stays off the wire", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"typed","method":"validate","api_version":"` + v + `"}`, 500, `{"request_id":"typed","status":"error","error":{"code":"tool_failed","message":"no sandbox","recoverable":true}}` + "\n"},
		{"unencodable result", http.MethodPost, domain.PathPrefix + "validate", `{"request_id":"unencodable","method":"validate","api_version":"` + v + `"}`, 500, `{"request_id":"unencodable","status":"error","error":{"code":"internal_error","message":"encode result: json: unsupported type: func()","recoverable":true}}` + "\n"},
		{"capability without method", http.MethodPost, domain.PathPrefix + "repo_map", `{"request_id":"r","method":"repo_map","api_version":"` + v + `"}`, 500, `{"request_id":"r","status":"error","error":{"code":"internal_error","message":"capability \"repo_map\" has no method","recoverable":true}}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			assert.Equal(t, tt.want, rec.Body.String())
		})
	}
}

// TestOnRequestSeesRoutedRequests: the service's log hook hears of each
// request that reached a method, with its error, and of no other.
func TestOnRequestSeesRoutedRequests(t *testing.T) {
	var seen []string
	h := NewHandler(Config{
		Methods: map[string]Method{domain.MethodHandshake: func(context.Context, domain.Request) (any, error) {
			return nil, Errorf(domain.CodeToolFailed, "x")
		}},
		Capabilities: []string{domain.MethodHandshake},
		OnRequest: func(method, requestID string, _ time.Duration, err error) {
			seen = append(seen, method+" "+requestID+" "+err.Error())
		},
	})
	for _, body := range []string{`{"method":"handshake"}`, `{"request_id":"r","method":"handshake"}`} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, domain.PathPrefix+"handshake", strings.NewReader(body)))
	}
	assert.Equal(t, []string{"handshake r tool_failed: x"}, seen)
}

// TestServeStopsWithContext: Serve answers until its context ends, then
// returns nil after a graceful shutdown.
func TestServeStopsWithContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, NewHandler(Config{})) }()
	resp, err := http.Get("http://" + ln.Addr().String() + domain.HealthPath)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, `{"status":"ok"}`, string(body))
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its context ended")
	}
}
