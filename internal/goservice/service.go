package goservice

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// Identity of the reference service.
const (
	ServiceName    = "cogworks-domain-go"
	ServiceVersion = "0.1.0"
	Domain         = "software"
)

// Options configures the service. The zero value is usable.
type Options struct {
	// ServiceOptions are the settings both built-in services share
	// (timeouts, logger, isolation, consents, limits, environment,
	// workspace quota — default DefaultWorkspaceBytes).
	sandbox.ServiceOptions
	// GoBin is the go command to run (default "go" from PATH).
	GoBin string
	// CacheDir holds the per-repository build cache layers (default
	// <user cache dir>/cogworks/gocache).
	CacheDir string
	// CacheBytes is the disk quota of a repository's build cache layer,
	// trimmed to it after every go command (default DefaultCacheBytes).
	CacheBytes int64
}

func (o Options) withDefaults() Options {
	o.ServiceOptions = o.WithDefaults()
	if o.GoBin == "" {
		o.GoBin = "go"
	}
	if o.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		o.CacheDir = filepath.Join(dir, "cogworks", "gocache")
	}
	return o
}

// capabilities lists the methods the service implements.
var capabilities = []string{
	domain.MethodHandshake, domain.MethodValidate, domain.MethodNormalise,
	domain.MethodReviewRules, domain.MethodSimulate, domain.MethodValidateDeps,
	domain.MethodExtractInterfaces, domain.MethodDependencyGraph, domain.MethodRepoMap,
}

// service holds the methods; the embedded handler is the Extension API
// server they are served by.
type service struct {
	*extserver.Handler
	opts Options
	run  *runner
}

// NewHandler returns the HTTP handler serving the Extension API. Unless
// opts.Isolation is given it probes the host's isolation once, and it
// logs which isolation is in force.
func NewHandler(opts Options) http.Handler {
	opts = opts.withDefaults()
	iso := opts.ProbeIsolation(context.Background())
	s := &service{opts: opts, run: &runner{
		goBin: opts.GoBin, iso: iso, unsafe: opts.UnsafeNoSandbox, allowNet: opts.AllowNetwork,
		limits: opts.Limits, environ: opts.Environ, cacheDir: opts.CacheDir, logger: opts.Logger,
		workspaceBytes: opts.WorkspaceBytes, cacheBytes: opts.CacheBytes,
	}}
	s.Handler = extserver.NewHandler(extserver.Config{
		Methods: s.methods(), Capabilities: capabilities,
		OnRequest: func(method, requestID string, took time.Duration, err error) {
			opts.Logger.Info("request", "method", method, "request_id", requestID, "duration", took, "isolation", string(iso.Mode), "error", err)
		},
	})
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

// Serve answers Extension API requests on ln until ctx is cancelled, then
// shuts down gracefully, waiting up to 10 seconds for in-flight requests.
func Serve(ctx context.Context, ln net.Listener, opts Options) error {
	return extserver.Serve(ctx, ln, NewHandler(opts))
}

func (s *service) methods() map[string]extserver.Method {
	return map[string]extserver.Method{
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
