package goservice

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Identity of the reference service.
const (
	ServiceName    = "cogworks-domain-go"
	ServiceVersion = "0.1.0"
	Domain         = "software"
)

// maxRequestBytes bounds a request body.
const maxRequestBytes = 64 << 20

// Options configures the service. The zero value is usable.
type Options struct {
	// GoBin is the go command to run (default "go" from PATH).
	GoBin string
	// CommandTimeout bounds build, vet and list invocations (default 4m).
	CommandTimeout time.Duration
	// TestTimeout is the default and maximum go test -timeout (default 9m,
	// below the client's 10 minute simulate timeout).
	TestTimeout time.Duration
	// Logger receives one line per request (default: discard).
	Logger *slog.Logger
	// Isolation is what sandbox.Probe found on this host; nil probes once
	// when the handler is built.
	Isolation *sandbox.Isolation
	// UnsafeNoSandbox runs the go command unisolated where isolation is
	// unavailable (sandbox.UnsafeEnv); otherwise such a host refuses.
	UnsafeNoSandbox bool
	// AllowNetwork is the operator's consent (sandbox.AllowNetworkEnv) to
	// the network for repositories that ask for it in [sandbox].
	AllowNetwork bool
	// Limits bound every sandboxed go command (zero: sandbox defaults,
	// with RLIMIT_CPU from the command's timeout).
	Limits sandbox.Limits
	// Environ is the environment the go command's is derived from
	// (default os.Environ()); only PATH and GO* settings pass.
	Environ []string
	// CacheDir holds the per-repository build cache layers (default
	// <user cache dir>/cogworks/gocache).
	CacheDir string
	// WorkspaceBytes is the disk quota of a request's workspace, checked
	// after every go command (default DefaultWorkspaceBytes).
	WorkspaceBytes int64
	// CacheBytes is the disk quota of a repository's build cache layer,
	// trimmed to it after every go command (default DefaultCacheBytes).
	CacheBytes int64
}

func (o Options) withDefaults() Options {
	if o.GoBin == "" {
		o.GoBin = "go"
	}
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 4 * time.Minute
	}
	if o.TestTimeout <= 0 {
		o.TestTimeout = 9 * time.Minute
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		o.CacheDir = filepath.Join(dir, "cogworks", "gocache")
	}
	if o.Limits.OutputBytes == 0 {
		o.Limits.OutputBytes = sandbox.DefaultLimits().OutputBytes
	}
	return o
}

// capabilities lists the methods the service implements.
var capabilities = []string{
	domain.MethodHandshake, domain.MethodValidate, domain.MethodNormalise,
	domain.MethodReviewRules, domain.MethodSimulate, domain.MethodValidateDeps,
	domain.MethodExtractInterfaces, domain.MethodDependencyGraph, domain.MethodRepoMap,
}

type service struct {
	opts Options
	run  *runner
}

type methodFunc func(ctx context.Context, req domain.Request) (any, error)

// NewHandler returns the HTTP handler serving the Extension API. Unless
// opts.Isolation is given it probes the host's isolation once, and it
// logs which isolation is in force.
func NewHandler(opts Options) http.Handler {
	opts = opts.withDefaults()
	iso := ProbeIsolation(context.Background(), opts)
	s := &service{opts: opts, run: &runner{
		goBin: opts.GoBin, iso: iso, unsafe: opts.UnsafeNoSandbox, allowNet: opts.AllowNetwork,
		limits: opts.Limits, environ: opts.Environ, cacheDir: opts.CacheDir, logger: opts.Logger,
		workspaceBytes: opts.WorkspaceBytes, cacheBytes: opts.CacheBytes,
	}}
	switch {
	case iso.Available():
		opts.Logger.Info("sandbox", "isolation", iso.String())
	case opts.UnsafeNoSandbox:
		opts.Logger.Warn("sandbox UNAVAILABLE and "+sandbox.UnsafeEnv+"=1: generated code runs unisolated with this service's privileges", "isolation", iso.String())
	default:
		opts.Logger.Error("sandbox unavailable: the service refuses to build or test generated code", "isolation", iso.String(), "fix", sandbox.Fix)
	}
	return s
}

// ProbeIsolation returns opts.Isolation, or probes the host when nil.
func ProbeIsolation(ctx context.Context, opts Options) sandbox.Isolation {
	if opts.Isolation != nil {
		return *opts.Isolation
	}
	return sandbox.Probe(ctx)
}

// Serve answers Extension API requests on ln until ctx is cancelled, then
// shuts down gracefully, waiting up to 10 seconds for in-flight requests.
func Serve(ctx context.Context, ln net.Listener, opts Options) error {
	srv := &http.Server{Handler: NewHandler(opts), ReadHeaderTimeout: 10 * time.Second}
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

func (s *service) methods() map[string]methodFunc {
	return map[string]methodFunc{
		domain.MethodHandshake:         s.handshake,
		domain.MethodValidate:          s.validate,
		domain.MethodNormalise:         s.normalise,
		domain.MethodReviewRules:       s.reviewRules,
		domain.MethodSimulate:          s.simulate,
		domain.MethodValidateDeps:      s.validateDeps,
		domain.MethodExtractInterfaces: s.extractInterfaces,
		domain.MethodDependencyGraph:   s.dependencyGraph,
		domain.MethodRepoMap:           s.repoMap,
	}
}

// ServeHTTP routes /extension/v1/<method> and /extension/v1/health.
func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == domain.HealthPath && r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"ok"}`)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, domain.PathPrefix)
	if !ok || method == "" {
		writeError(w, "", failf(domain.CodeInvalidRequest, "no Extension API route %s", r.URL.Path))
		return
	}
	fn, ok := s.methods()[method]
	if !ok {
		writeError(w, "", failf(domain.CodeUnsupportedMethod, "method %q is not supported; capabilities: %s", method, strings.Join(capabilities, ", ")))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, "", failf(domain.CodeInvalidRequest, "%s requires POST, got %s", r.URL.Path, r.Method))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes))
	if err != nil {
		writeError(w, "", failf(domain.CodeInvalidRequest, "read request body: %v", err))
		return
	}
	req, err := decodeRequest(method, body)
	if err != nil {
		writeError(w, req.RequestID, err)
		return
	}
	start := time.Now()
	result, err := fn(r.Context(), req)
	s.opts.Logger.Info("request", "method", method, "request_id", req.RequestID, "duration", time.Since(start), "isolation", string(s.run.iso.Mode), "error", err)
	if err != nil {
		writeError(w, req.RequestID, err)
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		writeError(w, req.RequestID, failf(domain.CodeInternalError, "encode result: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, domain.Response{RequestID: req.RequestID, Status: domain.StatusOK, Result: raw})
}

// decodeRequest parses and checks the envelope.
func decodeRequest(method string, body []byte) (domain.Request, error) {
	var req domain.Request
	if err := json.Unmarshal(body, &req); err != nil {
		return domain.Request{}, failf(domain.CodeInvalidRequest, "malformed request envelope: %v", err)
	}
	if req.RequestID == "" {
		return req, failf(domain.CodeInvalidRequest, "field request_id is required")
	}
	if req.Method != method {
		return req, failf(domain.CodeInvalidRequest, "field method %q does not match the route's method %q", req.Method, method)
	}
	if method == domain.MethodHandshake {
		return req, nil // the handshake answers any version so the client can report both
	}
	if req.APIVersion == "" {
		return req, failf(domain.CodeInvalidRequest, "field api_version is required")
	}
	if err := domain.CompatibleAPI(domain.APIVersion, req.APIVersion); err != nil {
		return req, failf(domain.CodeAPIVersionMismatch, "request api_version %s is incompatible with the service's %s", req.APIVersion, domain.APIVersion)
	}
	return req, nil
}

func (s *service) handshake(context.Context, domain.Request) (any, error) {
	return domain.HandshakeResult{
		Name:           ServiceName,
		ServiceVersion: ServiceVersion,
		APIVersion:     domain.APIVersion,
		Domain:         Domain,
		Capabilities:   append([]string(nil), capabilities...),
		ArtifactTypes:  []string{".go", "go.mod"},
		InterfaceTypes: []string{"bus_protocol", "signal"},
		InterfaceVersions: map[string][]string{
			"bus_protocol": {"1"},
			"signal":       {"1"},
		},
	}, nil
}

// methodError is a failure with an Extension API error code.
type methodError struct {
	code domain.ErrorCode
	msg  string
	// cause is a typed error a caller may branch on (e.g.
	// *sandbox.UnavailableError).
	cause error
}

func (e *methodError) Error() string { return string(e.code) + ": " + e.msg }

func (e *methodError) Unwrap() error { return e.cause }

func failf(code domain.ErrorCode, format string, args ...any) error {
	return &methodError{code: code, msg: fmt.Sprintf(format, args...)}
}

var httpStatus = map[domain.ErrorCode]int{
	domain.CodeInvalidRequest:     http.StatusBadRequest,
	domain.CodeUnsupportedMethod:  http.StatusNotFound,
	domain.CodeAPIVersionMismatch: http.StatusBadRequest,
	domain.CodeArtifactNotFound:   http.StatusNotFound,
	domain.CodeTimeout:            http.StatusGatewayTimeout,
}

func writeError(w http.ResponseWriter, requestID string, err error) {
	var me *methodError
	if !errors.As(err, &me) {
		me = &methodError{code: domain.CodeInternalError, msg: err.Error()}
	}
	status, ok := httpStatus[me.code]
	if !ok {
		status = http.StatusInternalServerError
	}
	writeJSON(w, status, domain.Response{
		RequestID: requestID,
		Status:    domain.StatusError,
		Error:     &domain.ErrorBody{Code: me.code, Message: me.msg, Recoverable: me.code.Recoverable()},
	})
}

func writeJSON(w http.ResponseWriter, status int, resp domain.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(resp)
}
