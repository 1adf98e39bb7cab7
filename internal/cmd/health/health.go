package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/factory"
)

// HealthOptions are the flags of `cogworks health`.
type HealthOptions struct {
	Workspace string
	Service   string
	Output    string
}

// NewCmdHealth builds `cogworks health [service]`.
func NewCmdHealth(f *factory.Factory) *cobra.Command {
	opts := &HealthOptions{}
	cmd := &cobra.Command{
		Use:   "health [service]",
		Short: "Handshake the registered domain services and show their status",
		Long: `Connect to every domain service registered in .cogworks/services.toml (or the
file COGWORKS_DOMAIN_SERVICES_CONFIG names), exchange the Extension API
handshake and call health; print one row per service. To test a service you
are writing against the whole Extension API, run the conformance suite (see
docs/domain-services.md).` + factory.HelpEnv(factory.EnvWorkspace, factory.EnvServices, factory.EnvLog) +
			factory.HelpExit("0  every service answered", "1  a service is unavailable, incompatible or failing",
				"2  bad usage, no services registered, or an unknown service name"),
		Example: `  cogworks health
  cogworks health go --output json
  COGWORKS_DOMAIN_SERVICES_CONFIG=/etc/cogworks/services.toml cogworks health`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Service = args[0]
			}
			if opts.Workspace == "" {
				opts.Workspace = factory.DefaultWorkspace(f)
			}
			if err := factory.ValidateOutput(opts.Output, "text", "json"); err != nil {
				return &factory.UsageError{Err: err}
			}
			if err := factory.CheckWorkspace(opts.Workspace); err != nil {
				return err
			}
			return runHealth(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Workspace, "workspace", "", "repository checkout holding .cogworks/services.toml")
	cmd.Flags().StringVar(&opts.Output, "output", "text", "output format: text|json")
	return cmd
}

// healthJSON is one row of `health --output json`, with snake_case keys
// like every CogWorks JSON output.
type healthJSON struct {
	Name         string   `json:"name"`
	Domain       string   `json:"domain"`
	Version      string   `json:"version"`
	APIVersion   string   `json:"api_version"`
	Capabilities []string `json:"capabilities"`
	// ArtifactTypes are the types the service declares: a change's files
	// go to the service whose types cover them.
	ArtifactTypes []string `json:"artifact_types"`
	Status        string   `json:"status"`
	Error         string   `json:"error,omitempty"`
}

func runHealth(ctx context.Context, f *factory.Factory, opts *HealthOptions) error {
	override := f.Env("COGWORKS_DOMAIN_SERVICES_CONFIG")
	path := domain.ServicesPath(opts.Workspace, override)
	if _, err := os.Stat(path); override != "" && errors.Is(err, fs.ErrNotExist) {
		return &factory.UsageError{Err: fmt.Errorf("COGWORKS_DOMAIN_SERVICES_CONFIG: %s does not exist", path)}
	}
	cfgs, err := factory.LoadServices(path)
	if err != nil {
		return &factory.UsageError{Err: err}
	}
	if len(cfgs) == 0 {
		// The usual case in a Go module, where process starts its built-in
		// service: say so rather than leave "none" looking like a fault.
		return &factory.UsageError{Err: fmt.Errorf("no domain services registered in %s: register one there (docs/domain-services.md); "+
			"without a registration, process uses its built-in Go domain service in a Go module, which `cogworks doctor` checks", path)}
	}
	if opts.Service != "" {
		var picked []domain.ServiceConfig
		for _, c := range cfgs {
			if c.Name == opts.Service {
				picked = append(picked, c)
			}
		}
		if len(picked) == 0 {
			return &factory.UsageError{Err: fmt.Errorf("service %q is not registered in %s", opts.Service, path)}
		}
		cfgs = picked
	}
	rows := domain.HealthTable(ctx, cfgs)
	if opts.Output == "json" {
		out := make([]healthJSON, len(rows))
		for i, r := range rows {
			out[i] = healthJSON(r)
		}
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SERVICE\tDOMAIN\tVERSION\tAPI\tCAPABILITIES\tSTATUS")
		for _, r := range rows {
			status := r.Status
			if r.Error != "" {
				status += ": " + r.Error
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Domain, r.Version, r.APIVersion, strings.Join(r.Capabilities, ","), status)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if r.Status != "ok" {
			return fmt.Errorf("domain service %s is %s", r.Name, r.Status)
		}
	}
	return nil
}
