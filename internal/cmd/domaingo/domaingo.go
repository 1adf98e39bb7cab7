package domaingo

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// DomainGoOptions are the flags of the hidden `cogworks domain-go serve`.
type DomainGoOptions struct {
	Socket         string
	HTTP           string
	TestTimeout    time.Duration
	CommandTimeout time.Duration
	// StopOnStdinEOF stops the service when its standard input closes: the
	// parent `cogworks process` holds the write end, so the service never
	// outlives it, even when the parent is killed.
	StopOnStdinEOF bool
}

// Validate requires exactly one of --socket and --http.
func (o *DomainGoOptions) Validate() error { return OneListener(o.Socket, o.HTTP) }

// OneListener requires exactly one of a built-in service's --socket and
// --http.
func OneListener(socket, http string) error {
	if (socket == "") == (http == "") {
		return errors.New("exactly one of --socket PATH or --http ADDR is required")
	}
	return nil
}

// UntilStdinEOF returns ctx, ended also when standard input reaches end of
// file if stop is set: the parent `cogworks process` holds its write end,
// so a built-in service never outlives it, even when the parent is killed.
func UntilStdinEOF(ctx context.Context, f *factory.Factory, stop bool) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if stop && f.IO.In != nil {
		go func() {
			_, _ = io.Copy(io.Discard, f.IO.In)
			cancel()
		}()
	}
	return ctx, cancel
}

// NewCmdDomainGo builds the hidden `cogworks domain-go`: the reference Go
// domain service (the same code as cogworks-domain-go) built into the
// cogworks binary, so `cogworks process` can start it as a child process
// when a repository registers no domain service.
func NewCmdDomainGo(f *factory.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:    "domain-go",
		Short:  "The built-in reference Go domain service",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	opts := &DomainGoOptions{}
	serve := &cobra.Command{
		Use:   "serve (--socket PATH | --http ADDR)",
		Short: "Serve the Extension API until SIGINT, SIGTERM or (with --stop-on-stdin-eof) the end of standard input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			return runDomainGo(cmd.Context(), f, opts)
		},
	}
	fl := serve.Flags()
	fl.StringVar(&opts.Socket, "socket", "", "unix socket path to listen on (a stale socket file is removed)")
	fl.StringVar(&opts.HTTP, "http", "", "TCP address to listen on, e.g. 127.0.0.1:7070")
	fl.DurationVar(&opts.TestTimeout, "test-timeout", 9*time.Minute, "maximum go test duration for simulate")
	fl.DurationVar(&opts.CommandTimeout, "command-timeout", 4*time.Minute, "maximum duration of build, vet and list")
	fl.BoolVar(&opts.StopOnStdinEOF, "stop-on-stdin-eof", false, "stop when standard input reaches end of file (set by cogworks process)")
	root.AddCommand(serve)
	return root
}

func runDomainGo(ctx context.Context, f *factory.Factory, opts *DomainGoOptions) error {
	ln, cleanup, err := goservice.Listen(opts.Socket, opts.HTTP)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := UntilStdinEOF(ctx, f, opts.StopOnStdinEOF)
	defer cancel()
	logger := f.Logger().With("component", "domain-go")
	logger.Info("serving", "address", ln.Addr().String())
	return goservice.Serve(ctx, ln, goservice.Options{ServiceOptions: sandbox.ServiceOptions{
		TestTimeout: opts.TestTimeout, CommandTimeout: opts.CommandTimeout, Logger: logger.WithGroup("request"),
	}.WithConsent(f.Env)})
}
