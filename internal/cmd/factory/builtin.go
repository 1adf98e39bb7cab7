package factory

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/secrets"
)

// builtinServiceName is the registration name of the built-in Go domain
// service.
const builtinServiceName = "go (built-in)"

// builtinReadyTimeout bounds how long the child may take to answer its
// handshake.
const builtinReadyTimeout = 20 * time.Second

// builtinStopTimeout bounds the child's graceful shutdown before it is
// killed.
const builtinStopTimeout = 15 * time.Second

// BuiltinDomain runs the reference Go domain service as a child process of
// this binary (`<self> domain-go serve --socket <tmp> --stop-on-stdin-eof`)
// for a Go repository whose services.toml names no service. It is started
// at most once per invocation and stopped by Stop on every exit path; the
// child also stops by itself when its standard input (held by this
// process) closes, so a killed parent leaves no service behind.
type BuiltinDomain struct {
	// Executable returns the path of the binary to re-execute
	// (os.Executable by default; tests substitute their own).
	Executable func() (string, error)
	// Args are the arguments before the serve flags.
	Args []string
	// Env is the environment the child's is drawn from (default
	// os.Environ()); only serviceEnvNames and PassEnv reach the child.
	Env []string
	// PassEnv names extra variables the child gets (tests use it).
	PassEnv []string
	Stderr  io.Writer
	Logger  *slog.Logger
	// Name is the registration name (builtinServiceName by default) and
	// Label how messages call the service.
	Name, Label string

	mu      sync.Mutex
	started bool
	cfg     domain.ServiceConfig
	err     error
	dir     string
	Cmd     *exec.Cmd
	stdin   io.WriteCloser
	exited  chan struct{}
	waitErr error
	// commands are the built-in command services started for the
	// configuration's [[domains]], by domain name; Stop stops them too.
	Commands map[string]*BuiltinDomain
}

// NewBuiltinDomain is the default runner of the built-in Go domain
// service: this binary re-executed as "domain-go serve".
func NewBuiltinDomain(f *Factory) *BuiltinDomain {
	return &BuiltinDomain{
		Executable: os.Executable,
		Args:       []string{"domain-go", "serve"},
		// The service runs generated tests: what it prints may quote a
		// secret, and standard error is the (often public) CI log.
		Stderr: secrets.NewWriter(f.IO.ErrOut, f.Redactor()),
		Logger: f.Logger(),
		Name:   builtinServiceName,
		Label:  "built-in Go domain service",
	}
}

// Command returns the registration of the built-in command service for
// the configuration's domain d (`<self> domain-cmd serve --domain-json
// …`), starting it once per invocation beside the Go service and with the
// same environment allow-list, socket and lifetime.
func (b *BuiltinDomain) Command(ctx context.Context, d config.Domain) (domain.ServiceConfig, error) {
	spec, err := json.Marshal(d)
	if err != nil {
		return domain.ServiceConfig{}, fmt.Errorf("built-in command service %q: encode its domain: %w", d.Name, err)
	}
	b.mu.Lock()
	c, ok := b.Commands[d.Name]
	if !ok {
		c = &BuiltinDomain{
			Executable: b.Executable, Env: b.Env, PassEnv: b.PassEnv, Stderr: b.Stderr, Logger: b.Logger,
			Args:  []string{"domain-cmd", "serve", "--domain-json", string(spec)},
			Name:  d.Name + " (built-in command)",
			Label: fmt.Sprintf("built-in command service %q", d.Name),
		}
		if b.Commands == nil {
			b.Commands = map[string]*BuiltinDomain{}
		}
		b.Commands[d.Name] = c
	}
	b.mu.Unlock()
	return c.Start(ctx)
}

// Start launches the service (once) and returns its registration after a
// successful handshake.
func (b *BuiltinDomain) Start(ctx context.Context) (domain.ServiceConfig, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return b.cfg, b.err
	}
	b.started = true
	b.cfg, b.err = b.start(ctx)
	if b.err != nil {
		b.stopLocked()
	}
	return b.cfg, b.err
}

func (b *BuiltinDomain) start(ctx context.Context) (domain.ServiceConfig, error) {
	label := cmp.Or(b.Label, "built-in Go domain service")
	exe, err := b.Executable()
	if err != nil {
		return domain.ServiceConfig{}, fmt.Errorf("%s: locate cogworks binary: %w", label, err)
	}
	if strings.HasSuffix(filepath.Base(exe), ".test") && b.Env == nil {
		// A test binary would run its own tests again instead of serving,
		// unless the test set the environment that makes it act as
		// cogworks (see builtin_test.go); other tests register a service.
		return domain.ServiceConfig{}, fmt.Errorf("%s: %s is a test binary, not cogworks; register a service in %s", label, exe, domain.DefaultServicesFile)
	}
	// A short directory: unix socket paths are limited to ~107 bytes.
	b.dir, err = os.MkdirTemp("", "cwgo")
	if err != nil {
		return domain.ServiceConfig{}, fmt.Errorf("%s: socket directory: %w", label, err)
	}
	sock := filepath.Join(b.dir, "svc.sock")
	args := append(append([]string(nil), b.Args...), "--socket", sock, "--stop-on-stdin-eof")
	// Not CommandContext: the service's lifetime is this invocation's, ended
	// by Stop, not by the context of whichever step started it.
	cmd := exec.Command(exe, args...)
	cmd.Stdout = b.Stderr
	cmd.Stderr = b.Stderr
	base := b.Env
	if base == nil {
		base = os.Environ()
	}
	cmd.Env = serviceEnv(base, b.PassEnv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return domain.ServiceConfig{}, fmt.Errorf("%s: stdin pipe: %w", label, err)
	}
	if err := cmd.Start(); err != nil {
		return domain.ServiceConfig{}, fmt.Errorf("%s: start %s: %w", label, exe, err)
	}
	b.Cmd, b.stdin, b.exited = cmd, stdin, make(chan struct{})
	go func() { b.waitErr = cmd.Wait(); close(b.exited) }()

	cfg := domain.ServiceConfig{Name: cmp.Or(b.Name, builtinServiceName), Transport: domain.TransportUnix, Endpoint: sock}
	if err := b.awaitHandshake(ctx, cfg); err != nil {
		return domain.ServiceConfig{}, err
	}
	b.Logger.Info("no domain service registered in "+domain.DefaultServicesFile+": using the "+label,
		"socket", sock, "pid", cmd.Process.Pid)
	return cfg, nil
}

// awaitHandshake polls the socket until the service answers its
// handshake, the child exits or the timeout passes.
func (b *BuiltinDomain) awaitHandshake(ctx context.Context, cfg domain.ServiceConfig) error {
	label := cmp.Or(b.Label, "built-in Go domain service")
	client, err := domain.NewClient(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, builtinReadyTimeout)
	defer cancel()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err = client.Handshake(ctx); err == nil {
			return nil
		}
		select {
		case <-b.exited:
			return fmt.Errorf("%s exited before answering its handshake: %v", label, b.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer its handshake within %s: %w", label, builtinReadyTimeout, err)
		case <-tick.C:
		}
	}
}

// Stop ends the service (closing its standard input, then killing it after
// builtinStopTimeout) and removes its socket directory. It is safe to call
// when nothing was started and more than once.
func (b *BuiltinDomain) Stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stopLocked()
}

func (b *BuiltinDomain) stopLocked() {
	for _, c := range b.Commands {
		c.Stop()
	}
	b.Commands = nil
	if b.Cmd != nil {
		_ = b.stdin.Close()
		select {
		case <-b.exited:
		case <-time.After(builtinStopTimeout):
			_ = b.Cmd.Process.Kill()
			<-b.exited
		}
		if fl, ok := b.Stderr.(interface{ Flush() error }); ok {
			_ = fl.Flush() // the log stream's errors have nowhere to go
		}
		var ee *exec.ExitError
		if b.waitErr != nil && !errors.As(b.waitErr, &ee) {
			b.Logger.Warn(cmp.Or(b.Label, "built-in Go domain service"), "error", b.waitErr)
		}
		b.Cmd = nil
	}
	if b.dir != "" {
		_ = os.RemoveAll(b.dir)
		b.dir = ""
	}
}

// serviceEnvNames are the variables the built-in domain service gets. It
// needs no secret: it runs the go command, whose module settings it reads
// from GO* variables, and where its caches are (HOME, XDG). The GitHub
// token, the LLM key and the CI runner's variables never reach it, so
// nothing it starts can inherit them.
var serviceEnvNames = []string{
	"PATH", "HOME", "USER", "LOGNAME", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
	"GOROOT", "GOPATH", "GOCACHE", "GOMODCACHE", "GOENV", "GOTOOLCHAIN", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE",
	"GONOPROXY", "GOSUMDB", "GOINSECURE", "GOAMD64", "GOARM64", "GOARM", "GO386",
	"COGWORKS_LOG_LEVEL", "COGWORKS_LOG_FORMAT", sandbox.UnsafeEnv, sandbox.AllowNetworkEnv,
	// The command services' toolchains (none of them a secret).
	"CARGO_HOME", "RUSTUP_HOME", "JAVA_HOME", "MAVEN_HOME", "VIRTUAL_ENV", ToolDirsEnv,
}

// serviceEnv keeps the allowed variables of environ.
func serviceEnv(environ []string, extra ...string) []string {
	allowed := make(map[string]bool, len(serviceEnvNames)+len(extra))
	for _, n := range append(append([]string(nil), serviceEnvNames...), extra...) {
		allowed[n] = true
	}
	out := []string{}
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); allowed[name] {
			out = append(out, kv)
		}
	}
	return out
}
