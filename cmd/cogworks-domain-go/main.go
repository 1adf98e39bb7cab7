// Command cogworks-domain-go serves the reference Go domain service of the
// CogWorks Extension API:
//
//	cogworks-domain-go serve --socket PATH
//	cogworks-domain-go serve --http ADDR
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/spf13/cobra"
)

func main() {
	sandbox.Main()
	if err := sandbox.NonDumpable(); err != nil {
		fmt.Fprintln(os.Stderr, "cogworks-domain-go:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := newRootCmd(os.Stderr).ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "cogworks-domain-go:", err)
		stop()
		os.Exit(1)
	}
}

func newRootCmd(stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "cogworks-domain-go",
		Short:         "Reference CogWorks domain service for Go repositories",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(stderr, runServe))
	return root
}

// serveOptions are the flags of `serve`.
type serveOptions struct {
	Socket         string
	HTTP           string
	TestTimeout    time.Duration
	CommandTimeout time.Duration
	Stderr         io.Writer
}

// Validate requires exactly one of --socket and --http.
func (o serveOptions) Validate() error {
	if (o.Socket == "") == (o.HTTP == "") {
		return errors.New("exactly one of --socket PATH or --http ADDR is required")
	}
	return nil
}

func newServeCmd(stderr io.Writer, runF func(context.Context, serveOptions) error) *cobra.Command {
	opts := serveOptions{Stderr: stderr}
	cmd := &cobra.Command{
		Use:   "serve (--socket PATH | --http ADDR)",
		Short: "Serve the Extension API until SIGINT or SIGTERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Socket, "socket", "", "unix socket path to listen on (a stale socket file is removed)")
	cmd.Flags().StringVar(&opts.HTTP, "http", "", "TCP address to listen on, e.g. 127.0.0.1:7070")
	cmd.Flags().DurationVar(&opts.TestTimeout, "test-timeout", 9*time.Minute, "maximum go test duration for simulate")
	cmd.Flags().DurationVar(&opts.CommandTimeout, "command-timeout", 4*time.Minute, "maximum duration of build, vet and list")
	return cmd
}

func runServe(ctx context.Context, opts serveOptions) error {
	ln, cleanup, err := goservice.Listen(opts.Socket, opts.HTTP)
	if err != nil {
		return err
	}
	defer cleanup()
	logger := slog.New(slog.NewJSONHandler(opts.Stderr, nil))
	logger.Info("serving", "address", ln.Addr().String())
	return goservice.Serve(ctx, ln, goservice.Options{ServiceOptions: sandbox.ServiceOptions{
		TestTimeout: opts.TestTimeout, CommandTimeout: opts.CommandTimeout, Logger: logger,
	}.WithConsent(os.Getenv)})
}
