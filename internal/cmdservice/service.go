package cmdservice

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Identity of the service; the handshake's domain is the Domain's name.
const (
	ServiceName    = "cogworks-domain-cmd"
	ServiceVersion = "0.1.0"
)

// Options configures the service. The zero value is usable.
type Options struct {
	// ServiceOptions are the settings both built-in services share
	// (timeouts, logger, isolation, consents, limits, environment,
	// workspace quota — default DefaultWorkspaceBytes). Environ is only
	// where PATH comes from; nothing else of it reaches a command.
	sandbox.ServiceOptions
	// ToolDirs are host directories bound read-only into every sandbox,
	// for toolchains installed outside /usr.
	ToolDirs []string
}

func (o Options) withDefaults() Options {
	o.ServiceOptions = o.WithDefaults()
	if o.WorkspaceBytes <= 0 {
		o.WorkspaceBytes = DefaultWorkspaceBytes
	}
	return o
}

// service holds d's methods; the embedded handler is the Extension API
// server they are served by.
type service struct {
	*extserver.Handler
	d    Domain
	opts Options
	run  *runner
}

// NewHandler returns the HTTP handler serving the Extension API for d.
// It probes the host's isolation once unless opts.Isolation is given and,
// when d's commands name {python}, picks the interpreter (findPython).
func NewHandler(ctx context.Context, d Domain, opts Options) http.Handler {
	opts = opts.withDefaults()
	iso := opts.ProbeIsolation(ctx)
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
	s.Handler = extserver.NewHandler(extserver.Config{
		Methods: s.methods(), Capabilities: s.capabilities(),
		OnRequest: func(method, requestID string, took time.Duration, err error) {
			opts.Logger.Info("request", "domain", s.d.Name, "method", method, "request_id", requestID, "duration", took, "error", err)
		},
	})
	if !iso.Available() && !opts.UnsafeNoSandbox {
		opts.Logger.Error("sandbox unavailable: the service refuses to run commands", "isolation", iso.String(), "fix", sandbox.Fix)
	}
	return s
}

// Serve answers Extension API requests for d on ln until ctx is
// cancelled, then shuts down, waiting up to 10 seconds for requests.
func Serve(ctx context.Context, ln net.Listener, d Domain, opts Options) error {
	return extserver.Serve(ctx, ln, NewHandler(ctx, d, opts))
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

// methods holds every method the service has; only the capabilities are
// routed.
func (s *service) methods() map[string]extserver.Method {
	return map[string]extserver.Method{
		domain.MethodHandshake: s.handshake,
		domain.MethodValidate:  s.validate,
		domain.MethodNormalise: s.normalise,
		domain.MethodSimulate:  s.simulate,
		domain.MethodRepoMap:   s.repoMap,
	}
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
