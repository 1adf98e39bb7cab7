package root

import (
	"github.com/cogworks/cogworks/internal/cmd/costreport"
	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/doctor"
	"github.com/cogworks/cogworks/internal/cmd/domaincmd"
	"github.com/cogworks/cogworks/internal/cmd/domaingo"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/health"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/cmd/process"
	"github.com/cogworks/cogworks/internal/cmd/processall"
	"github.com/cogworks/cogworks/internal/cmd/registry"
	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/cmd/status"
	"github.com/spf13/cobra"
)

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *factory.Factory, version string) *cobra.Command {
	root := &cobra.Command{
		Use:   "cogworks",
		Short: "CogWorks takes a labelled GitHub issue through a gated delivery pipeline",
		Long: `CogWorks is a stateless step function: label an issue cogworks:run and each
invocation reads the issue's state from GitHub, takes the processing lock, runs
one action of the current stage, writes the result back idempotently and
releases the lock. It never merges.

Start with 'cogworks init' in a repository checkout, check the set-up with
'cogworks doctor', and try the whole pipeline offline with 'cogworks demo'.` +
			factory.HelpEnv(factory.EnvLog) + factory.HelpExit(
			"0  success",
			"1  an escalation, a failed pipeline, a failed check or an infrastructure failure",
			"2  bad usage (unknown command or flag, extra argument) or bad configuration"),
		Example: `  cogworks init --repo acme/widgets --workspace .
  cogworks doctor --repo acme/widgets
  cogworks process --repo acme/widgets --issue 42 --max-steps 10
  cogworks demo`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &factory.UsageError{Err: err} })
	root.AddCommand(
		process.NewCmdProcess(f, nil),
		processall.NewCmdProcessAll(f, nil),
		status.NewCmdStatus(f),
		costreport.NewCmdCostReport(f),
		health.NewCmdHealth(f),
		registry.NewCmdRegistry(f),
		democmd.NewCmdDemo(f),
		serve.NewCmdServe(f),
		initcmd.NewCmdInit(f, nil),
		doctor.NewCmdDoctor(f, nil),
		domaingo.NewCmdDomainGo(f),
		domaincmd.NewCmdDomainCmd(f),
	)
	factory.FinishTree(root)
	return root
}
