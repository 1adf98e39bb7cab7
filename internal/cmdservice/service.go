package cmdservice

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
	"strings"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Identity of the service; the handshake's domain is the Domain's name.
const (
	ServiceName    = "cogworks-domain-cmd"
	ServiceVersion = "0.1.0"
)

// maxRequestBytes bounds a request body.
const maxRequestBytes = 64 << 20

// Options configures the service. The zero value is usable.
type Options struct {
	// CommandTimeout bounds set-up, format and check commands (default 4m).
	CommandTimeout time.Duration
	// TestTimeout is the default and maximum test run (default 9m, below
	// the client's 10 minute simulate timeout).
	TestTimeout time.Duration
	// Logger receives one line per request (default: discard).
	Logger *slog.Logger
	// Isolation is what sandbox.Probe found; nil probes once.
	Isolation *sandbox.Isolation
	// UnsafeNoSandbox runs commands unisolated where isolation is
	// unavailable (sandbox.UnsafeEnv); otherwise such a host refuses.
	UnsafeNoSandbox bool
	// AllowNetwork is the operator's consent (sandbox.AllowNetworkEnv) to
	// the network for a set-up command whose domain asks for it.
	AllowNetwork bool
	// Limits bound every command (zero: sandbox defaults, with RLIMIT_CPU
	// from the command's timeout).
	Limits sandbox.Limits
	// Environ is where PATH comes from (default os.Environ()); nothing
	// else of it reaches a command.
	Environ []string
	// ToolDirs are host directories bound read-only into every sandbox,
	// for toolchains installed outside /usr.
	ToolDirs []string
	// WorkspaceBytes bounds what a request's commands add to its
	// workspace, checked after every command (default
	// DefaultWorkspaceBytes).
	WorkspaceBytes int64
}

func (o Options) withDefaults() Options {
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
	if o.WorkspaceBytes <= 0 {
		o.WorkspaceBytes = DefaultWorkspaceBytes
	}
	if o.Limits.OutputBytes == 0 {
		o.Limits.OutputBytes = sandbox.DefaultLimits().OutputBytes
	}
	return o
}

type service struct {
	d    Domain
	opts Options
	run  *runner
}

type methodFunc func(ctx context.Context, req domain.Request) (any, error)

// NewHandler returns the HTTP handler serving the Extension API for d.
// It probes the host's isolation once unless opts.Isolation is given and,
// when d's commands name {python}, picks the interpreter (findPython).
func NewHandler(ctx context.Context, d Domain, opts Options) http.Handler {
	opts = opts.withDefaults()
	iso := sandbox.Probe(ctx)
	if opts.Isolation != nil {
		iso = *opts.Isolation
	}
	s := &service{d: d, opts: opts, run: &runner{
		iso: iso, unsafe: opts.UnsafeNoSandbox, allowNet: opts.AllowNetwork, limits: opts.Limits,
		environ: opts.Environ, toolDirs: opts.ToolDirs, logger: opts.Logger, quota: opts.WorkspaceBytes,
	}}
	if d.usesPython() {
		py := findPython(ctx, opts.Environ)
		s.d = d.withPython(py.bin)
		s.run.toolDirs = append(s.run.toolDirs, py.prefixes...)
		opts.Logger.Info("python", "interpreter", py.bin, "pytest", py.hasPytest)
	}
	if d.uses("cargo") {
		rt := findRust(opts.Environ)
		s.run.toolDirs = append(s.run.toolDirs, rt.dirs...)
		s.run.env = append(s.run.env, rt.env...)
		opts.Logger.Info("rust", "dirs", rt.dirs, "env", rt.env)
	}
	if !iso.Available() && !opts.UnsafeNoSandbox {
		opts.Logger.Error("sandbox unavailable: the service refuses to run commands", "isolation", iso.String(), "fix", sandbox.Fix)
	}
	return s
}

// Serve answers Extension API requests for d on ln until ctx is
// cancelled, then shuts down, waiting up to 10 seconds for requests.
func Serve(ctx context.Context, ln net.Listener, d Domain, opts Options) error {
	srv := &http.Server{Handler: NewHandler(ctx, d, opts), ReadHeaderTimeout: 10 * time.Second}
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

// capabilities lists what d can answer: only methods it has commands for.
func (s *service) capabilities() []string {
	caps := []string{domain.MethodHandshake}
	if len(s.d.Checks) > 0 {
		caps = append(caps, domain.MethodValidate)
	}
	if s.d.Format != "" {
		caps = append(caps, domain.MethodNormalise)
	}
	if s.d.Test != "" {
		caps = append(caps, domain.MethodSimulate)
	}
	if s.d.mapsLanguage() {
		caps = append(caps, domain.MethodRepoMap)
	}
	return caps
}

func (s *service) methods() map[string]methodFunc {
	all := map[string]methodFunc{
		domain.MethodHandshake: s.handshake,
		domain.MethodValidate:  s.validate,
		domain.MethodNormalise: s.normalise,
		domain.MethodSimulate:  s.simulate,
		domain.MethodRepoMap:   s.repoMap,
	}
	m := map[string]methodFunc{}
	for _, c := range s.capabilities() {
		m[c] = all[c]
	}
	return m
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
		writeError(w, "", failf(domain.CodeUnsupportedMethod, "method %q is not supported; capabilities: %s", method, strings.Join(s.capabilities(), ", ")))
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
	s.opts.Logger.Info("request", "domain", s.d.Name, "method", method, "request_id", req.RequestID, "duration", time.Since(start), "error", err)
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
		Name:              ServiceName,
		ServiceVersion:    ServiceVersion,
		APIVersion:        domain.APIVersion,
		Domain:            s.d.Name,
		Capabilities:      s.capabilities(),
		ArtifactTypes:     append([]string(nil), s.d.ArtifactTypes...),
		InterfaceTypes:    []string{},
		InterfaceVersions: map[string][]string{},
	}, nil
}

// methodError is a failure with an Extension API error code.
type methodError struct {
	code  domain.ErrorCode
	msg   string
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
