package extserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
)

// MaxRequestBytes bounds a request body.
const MaxRequestBytes = 64 << 20

// Method answers one Extension API method; its result is encoded as the
// response's result.
type Method func(ctx context.Context, req domain.Request) (any, error)

// Config is what a service brings to the shared server.
type Config struct {
	// Methods holds the implementation of each method the service has.
	Methods map[string]Method
	// Capabilities are the methods the service declares, in the order its
	// handshake and the unsupported_method message name them; only these
	// are routed, so each must have an entry in Methods.
	Capabilities []string
	// OnRequest, when set, is told of every request that reached its
	// method (for the service's log line).
	OnRequest func(method, requestID string, took time.Duration, err error)
}

// Handler serves the Extension API routes for one service.
type Handler struct {
	methods      map[string]Method
	capabilities []string
	onRequest    func(method, requestID string, took time.Duration, err error)
}

// NewHandler returns the handler routing cfg's declared capabilities. A
// capability without a method answers internal_error naming it (a wiring
// mistake the service's own tests see), never a panic.
func NewHandler(cfg Config) *Handler {
	h := &Handler{
		methods:      make(map[string]Method, len(cfg.Capabilities)),
		capabilities: append([]string(nil), cfg.Capabilities...),
		onRequest:    cfg.OnRequest,
	}
	for _, c := range cfg.Capabilities {
		fn := cfg.Methods[c]
		if fn == nil {
			name := c
			fn = func(context.Context, domain.Request) (any, error) {
				return nil, Errorf(domain.CodeInternalError, "capability %q has no method", name)
			}
		}
		h.methods[c] = fn
	}
	return h
}

// ServeHTTP routes /extension/v1/<method> and /extension/v1/health.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == domain.HealthPath && r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, domain.PathPrefix)
	if !ok || method == "" {
		writeError(w, "", Errorf(domain.CodeInvalidRequest, "no Extension API route %s", r.URL.Path))
		return
	}
	fn, ok := h.methods[method]
	if !ok {
		writeError(w, "", Errorf(domain.CodeUnsupportedMethod, "method %q is not supported; capabilities: %s", method, strings.Join(h.capabilities, ", ")))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, "", Errorf(domain.CodeInvalidRequest, "%s requires POST, got %s", r.URL.Path, r.Method))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes))
	if err != nil {
		writeError(w, "", Errorf(domain.CodeInvalidRequest, "read request body: %v", err))
		return
	}
	req, err := decodeRequest(method, body)
	if err != nil {
		writeError(w, req.RequestID, err)
		return
	}
	start := time.Now()
	result, err := fn(r.Context(), req)
	if h.onRequest != nil {
		h.onRequest(method, req.RequestID, time.Since(start), err)
	}
	if err != nil {
		writeError(w, req.RequestID, err)
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		writeError(w, req.RequestID, Errorf(domain.CodeInternalError, "encode result: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, domain.Response{RequestID: req.RequestID, Status: domain.StatusOK, Result: raw})
}

// decodeRequest parses and checks the envelope.
func decodeRequest(method string, body []byte) (domain.Request, error) {
	var req domain.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return domain.Request{}, Errorf(domain.CodeInvalidRequest, "malformed request envelope: %v", err)
	}
	if req.RequestID == "" {
		return req, Errorf(domain.CodeInvalidRequest, "field request_id is required")
	}
	if req.Method != method {
		return req, Errorf(domain.CodeInvalidRequest, "field method %q does not match the route's method %q", req.Method, method)
	}
	if method == domain.MethodHandshake {
		return req, nil // the handshake answers any version so the client can report both
	}
	if req.APIVersion == "" {
		return req, Errorf(domain.CodeInvalidRequest, "field api_version is required")
	}
	if err := domain.CompatibleAPI(domain.APIVersion, req.APIVersion); err != nil {
		return req, Errorf(domain.CodeAPIVersionMismatch, "request api_version %s is incompatible with the service's %s", req.APIVersion, domain.APIVersion)
	}
	return req, nil
}

// Serve answers requests with h on ln until ctx is cancelled, then shuts
// down gracefully, waiting up to 10 seconds for in-flight requests.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shut down %s: %w", ln.Addr(), err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", ln.Addr(), err)
	}
	return nil
}
