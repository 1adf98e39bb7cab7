package sandbox

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"
)

// ServiceOptions are the settings of a domain service that runs commands
// in the sandbox, one declaration for both built-in services: the Go
// service (goservice.Options) and the command service
// (cmdservice.Options) embed it. They are set by flags and the
// environment (UnsafeEnv, AllowNetworkEnv), never by a repository's
// configuration.
type ServiceOptions struct {
	// CommandTimeout bounds each command but the tests: set-up, format,
	// checks, build, vet, list (default 4m).
	CommandTimeout time.Duration
	// TestTimeout is the default and maximum test run (default 9m, below
	// the client's 10 minute simulate timeout).
	TestTimeout time.Duration
	// Logger receives one line per request (default: discard).
	Logger *slog.Logger
	// Isolation is what Probe found on this host; nil probes once when the
	// service's handler is built.
	Isolation *Isolation
	// UnsafeNoSandbox runs commands unisolated where isolation is
	// unavailable (UnsafeEnv); otherwise such a host refuses.
	UnsafeNoSandbox bool
	// AllowNetwork is the operator's consent (AllowNetworkEnv) to the
	// network for the commands whose repository or domain asks for it.
	AllowNetwork bool
	// Limits bound every command (zero: DefaultLimits, with RLIMIT_CPU
	// from the command's timeout).
	Limits Limits
	// Environ is the environment a command's is derived from (default
	// os.Environ()); each service passes only what it names.
	Environ []string
	// WorkspaceBytes is the disk quota of a request's workspace, checked
	// after every command (0: the service's own default).
	WorkspaceBytes int64
}

// WithDefaults fills the zero fields that have a default; WorkspaceBytes
// is left to the service, whose default differs.
func (o ServiceOptions) WithDefaults() ServiceOptions {
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
	if o.Limits.OutputBytes == 0 {
		o.Limits.OutputBytes = DefaultLimits().OutputBytes
	}
	return o
}

// WithConsent sets the operator's two consents from the environment
// getenv reads: UnsafeEnv=1 and AllowNetworkEnv=1.
func (o ServiceOptions) WithConsent(getenv func(string) string) ServiceOptions {
	o.UnsafeNoSandbox = getenv(UnsafeEnv) == "1"
	o.AllowNetwork = getenv(AllowNetworkEnv) == "1"
	return o
}

// ProbeIsolation returns o.Isolation, or probes the host when nil.
func (o ServiceOptions) ProbeIsolation(ctx context.Context) Isolation {
	if o.Isolation != nil {
		return *o.Isolation
	}
	return Probe(ctx)
}
