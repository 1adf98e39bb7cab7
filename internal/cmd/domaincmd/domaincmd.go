package domaincmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/domaingo"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmdservice"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// DomainCmdOptions are the flags of the hidden `cogworks domain-cmd serve`.
type DomainCmdOptions struct {
	Socket, HTTP string
	// DomainJSON is the configuration's [[domains]] entry, as JSON.
	DomainJSON     string
	TestTimeout    time.Duration
	CommandTimeout time.Duration
	StopOnStdinEOF bool
}

// Validate requires one listener and a domain.
func (o *DomainCmdOptions) Validate() error {
	if err := domaingo.OneListener(o.Socket, o.HTTP); err != nil {
		return err
	}
	if o.DomainJSON == "" {
		return errors.New("--domain-json is required")
	}
	return nil
}

// NewCmdDomainCmd builds the hidden `cogworks domain-cmd`: the built-in
// command domain service (internal/cmdservice) for one [[domains]] entry
// of the repository's configuration, started by `cogworks process` as a
// child process the way the built-in Go service is.
func NewCmdDomainCmd(f *factory.Factory) *cobra.Command {
	root := &cobra.Command{
		Use:    "domain-cmd",
		Short:  "The built-in command domain service for one configured toolchain",
		Hidden: true,
		Args:   cobra.NoArgs,
	}
	opts := &DomainCmdOptions{}
	serve := &cobra.Command{
		Use:   "serve (--socket PATH | --http ADDR) --domain-json JSON",
		Short: "Serve the Extension API for one [[domains]] entry until SIGINT, SIGTERM or the end of standard input",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			return runDomainCmd(cmd.Context(), f, opts)
		},
	}
	fl := serve.Flags()
	fl.StringVar(&opts.Socket, "socket", "", "unix socket path to listen on (a stale socket file is removed)")
	fl.StringVar(&opts.HTTP, "http", "", "TCP address to listen on, e.g. 127.0.0.1:7071")
	fl.StringVar(&opts.DomainJSON, "domain-json", "", "the [[domains]] entry of .cogworks/config.toml, as JSON")
	fl.DurationVar(&opts.TestTimeout, "test-timeout", 9*time.Minute, "maximum test run for simulate")
	fl.DurationVar(&opts.CommandTimeout, "command-timeout", 4*time.Minute, "maximum duration of set-up, format and checks")
	fl.BoolVar(&opts.StopOnStdinEOF, "stop-on-stdin-eof", false, "stop when standard input reaches end of file (set by cogworks process)")
	root.AddCommand(serve)
	return root
}

func runDomainCmd(ctx context.Context, f *factory.Factory, opts *DomainCmdOptions) error {
	var cd config.Domain
	if err := json.Unmarshal([]byte(opts.DomainJSON), &cd); err != nil {
		return &factory.UsageError{Err: fmt.Errorf("--domain-json: %w", err)}
	}
	d, err := cmdservice.Resolve(cd)
	if err != nil {
		return &factory.UsageError{Err: err}
	}
	ln, cleanup, err := goservice.Listen(opts.Socket, opts.HTTP)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, cancel := domaingo.UntilStdinEOF(ctx, f, opts.StopOnStdinEOF)
	defer cancel()
	logger := f.Logger().With("component", "domain-cmd", "domain", d.Name)
	logger.Info("serving", "address", ln.Addr().String())
	return cmdservice.Serve(ctx, ln, d, cmdservice.Options{ServiceOptions: sandbox.ServiceOptions{
		TestTimeout: opts.TestTimeout, CommandTimeout: opts.CommandTimeout, Logger: logger.WithGroup("request"),
	}.WithConsent(f.Env), ToolDirs: toolDirs(f.Env(factory.ToolDirsEnv))})
}

// toolDirs splits COGWORKS_TOOL_DIRS, keeping absolute paths only.
func toolDirs(v string) []string {
	var out []string
	for _, d := range strings.Split(v, ":") {
		if d != "" && filepath.IsAbs(d) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}
