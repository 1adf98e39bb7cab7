package factory

import (
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/stages"

	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// IOStreams are the command's input and output streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Client is the GitHub client the commands use: the engine's port, the
// stages' port, plus what process-all and status need.
type Client interface {
	engine.GitHub
	stages.GitHub
	SearchIssues(ctx context.Context, query string) ([]github.Issue, error)
}

// ExecutorsFunc builds the stage executors for one repository.
type ExecutorsFunc func(ctx context.Context, gh Client, repo github.Repo, workspace string, cfg config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error)

// Factory builds dependencies lazily, on first use.
type Factory struct {
	IO     IOStreams
	Getenv func(string) string
	// Environ lists the environment CogWorks started with ("NAME=value");
	// the values of its *_TOKEN, *_KEY, *_SECRET and *PASSWORD*
	// variables are redacted (see Redactor). nil: only the named
	// secrets read through Getenv are.
	Environ func() []string
	Clock   func() time.Time
	// GitHub returns the GitHub client; the default builds one from the
	// environment.
	GitHub func(ctx context.Context) (Client, error)
	// Executors builds the stage executors.
	Executors ExecutorsFunc
	// BotLogin is CogWorks's own login (labels it applies never approve).
	BotLogin string
	// StateKey, when set, replaces the state key taken from the
	// environment (the demo's fixed key).
	StateKey statesig.Key
	// LLMProvider, when set, replaces the provider built from config
	// (demo and tests use the scripted provider).
	LLMProvider llm.Provider
	// NewProvider builds the provider of a real LLM API from its
	// configuration; cmd/cogworks sets providers.FromConfig. It is
	// injected rather than imported so that the command packages, and
	// their test binaries, do not link the vendors' SDKs (issue 26's
	// suite time). nil: a configured real provider is a usage error.
	NewProvider func(llm.Config) (llm.Provider, error)
	// Metrics, when set, receives step, GitHub request and LLM figures.
	Metrics *metrics.Metrics
	// ProbeSandbox reports the isolation the host allows for generated
	// code (default sandbox.Probe; tests inject a result).
	ProbeSandbox func(ctx context.Context) sandbox.Isolation

	// builtin makes the built-in Go domain service's runner (default
	// newBuiltinDomain; tests re-execute their own binary).
	Builtin func(*Factory) *BuiltinDomain

	once   sync.Once
	client Client
	err    error

	botOnce sync.Once
	bot     string
	botErr  error

	redactOnce sync.Once
	redactor   *secrets.Redactor

	// logMu serialises the loggers' writes to IO.ErrOut: every Logger
	// call builds its own handler, whose lock guards only itself, and
	// process-all and serve log from several goroutines at once.
	logMu sync.Mutex
}

// logWriter writes to the factory's IO.ErrOut under logMu, one log line
// per Write.
type logWriter struct{ f *Factory }

func (w logWriter) Write(p []byte) (int, error) {
	w.f.logMu.Lock()
	defer w.f.logMu.Unlock()
	return w.f.IO.ErrOut.Write(p)
}

// NewFactory returns a Factory reading the process environment.
func NewFactory(io IOStreams) *Factory {
	f := &Factory{IO: io, Getenv: os.Getenv, Environ: os.Environ, Clock: time.Now}
	f.GitHub = func(ctx context.Context) (Client, error) {
		opts, err := github.OptionsFromEnv(f.Getenv)
		if err != nil {
			return nil, &UsageError{Err: err}
		}
		opts.Logger = f.Logger()
		opts.Redactor = f.Redactor()
		if f.Metrics != nil {
			opts.Transport = f.Metrics.Transport(nil)
		}
		c, err := github.New(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("create GitHub client: %w", err)
		}
		return c, nil
	}
	return f
}

// Client returns the memoised GitHub client.
func (f *Factory) Client(ctx context.Context) (Client, error) {
	f.once.Do(func() { f.client, f.err = f.GitHub(ctx) })
	return f.client, f.err
}

// Logger returns the structured logger configured by COGWORKS_LOG_FORMAT
// (text or json; unset: text when stderr is a terminal, json otherwise, as
// in CI) and COGWORKS_LOG_LEVEL (debug|info|warn|error). Every record
// passes through the factory's Redactor first.
func (f *Factory) Logger() *slog.Logger {
	level := slog.LevelInfo
	switch strings.ToLower(f.Env("COGWORKS_LOG_LEVEL")) {
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	}
	opts := &slog.HandlerOptions{Level: level}
	format := strings.ToLower(f.Env("COGWORKS_LOG_FORMAT"))
	if format == "" && isTerminal(f.IO.ErrOut) {
		format = "text"
	}
	var h slog.Handler = slog.NewJSONHandler(logWriter{f}, opts)
	if format == "text" {
		h = slog.NewTextHandler(logWriter{f}, opts)
	}
	return slog.New(secrets.NewHandler(h, f.Redactor()))
}

// Env reads the environment variable k through Getenv; "" when the
// Factory has no Getenv.
func (f *Factory) Env(k string) string {
	if f.Getenv == nil {
		return ""
	}
	return f.Getenv(k)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	fl, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := fl.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Redactor returns the one Redactor of this process, built on first use
// from the secrets of the environment (secrets.EnvValues) and, when
// COGWORKS_GITHUB_APP_PRIVATE_KEY names a key file, that file's key. The
// GitHub client, the LLM gateway and the loggers all use it.
func (f *Factory) Redactor() *secrets.Redactor {
	f.redactOnce.Do(func() {
		var environ []string
		if f.Environ != nil {
			environ = f.Environ()
		}
		values := secrets.EnvValues(f.Env, environ)
		if path := strings.TrimSpace(f.Env(secrets.EnvAppPrivateKey)); path != "" && !strings.Contains(path, "-----BEGIN") &&
			!strings.ContainsAny(path, "\n\r") {
			// A key file that cannot be read fails GitHub auth later,
			// with its own error; there is nothing to redact then.
			if pem, err := os.ReadFile(path); err == nil {
				values = append(values, secrets.PEMValues(string(pem))...)
			}
		}
		f.redactor = secrets.New(values...)
	})
	return f.redactor
}
