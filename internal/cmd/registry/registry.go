package registry

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/xval"
)

// RegistryOptions are the flags of `cogworks registry validate`.
type RegistryOptions struct {
	Workspace string
	Dir       string
}

// NewCmdRegistry builds `cogworks registry`.
func NewCmdRegistry(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "registry",
		Short: "Work with the interface registry (.cogworks/interfaces)",
		Long:  "Work with the interface registry (.cogworks/interfaces)." + factory.HelpExit("0  success", "2  bad usage or an invalid registry"),
		Example: `  cogworks registry validate
  cogworks registry validate --dir contracts/interfaces`,
	}
	opts := &RegistryOptions{}
	validate := &cobra.Command{
		Use:   "validate",
		Short: "Validate every interface definition against the schema and the registry checks",
		Long: `Validate .cogworks/interfaces/*.toml: schema conformance (errors name file,
interface and field), unique ids, resolvable references and conflicting
constraints.` + factory.HelpEnv(factory.EnvWorkspace, factory.EnvLLM+" (before the config is validated)", factory.EnvLog) + factory.HelpExit("0  the registry is valid",
			"2  bad usage, a missing workspace or registry directory, an invalid config, or an invalid registry"),
		Example: `  cogworks registry validate
  cogworks registry validate --workspace ~/src/widgets
  cogworks registry validate --dir contracts/interfaces`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Workspace == "" {
				opts.Workspace = factory.DefaultWorkspace(f)
			}
			return runRegistryValidate(f, opts)
		},
	}
	validate.Flags().StringVar(&opts.Workspace, "workspace", "", "repository checkout (default $GITHUB_WORKSPACE or .)")
	validate.Flags().StringVar(&opts.Dir, "dir", "", "registry directory (default [interfaces].directory of the config)")
	cmd.AddCommand(validate)
	return cmd
}

func runRegistryValidate(f *factory.Factory, opts *RegistryOptions) error {
	dir := opts.Dir
	if dir == "" {
		cfg, err := f.LoadConfig(opts.Workspace)
		if err != nil {
			return err
		}
		dir = filepath.Join(opts.Workspace, cfg.Interfaces.Directory)
	}
	// A missing directory is not an empty, valid registry: say so.
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return &factory.UsageError{Err: fmt.Errorf("interface registry directory %s does not exist (set [interfaces].directory in %s or --dir)", dir, config.Path)}
	}
	report, err := xval.ValidateDir(dir, opts.Workspace, nil)
	for _, finding := range report.Findings {
		fmt.Fprintln(f.IO.Out, finding.String())
	}
	if err != nil {
		return &factory.UsageError{Err: fmt.Errorf("interface registry %s is invalid:\n%w", dir, err)}
	}
	n := 0
	if report.Registry != nil {
		n = len(report.Registry.Interfaces)
	}
	_, err = fmt.Fprintf(f.IO.Out, "interface registry %s: %d interface(s), valid\n", dir, n)
	return err
}
