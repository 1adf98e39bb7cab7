package cli

import (
	"github.com/spf13/cobra"
)

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory, version string) *cobra.Command {
	root := &cobra.Command{
		Use:   "cogworks",
		Short: "CogWorks takes a labelled GitHub issue through a gated delivery pipeline",
		Long: `CogWorks is a stateless step function: label an issue cogworks:run and each
invocation reads the issue's state from GitHub, takes the processing lock, runs
one action of the current stage, writes the result back idempotently and
releases the lock. It never merges.

Start with 'cogworks init' in a repository checkout, check the set-up with
'cogworks doctor', and try the whole pipeline offline with 'cogworks demo'.` +
			helpEnv(envLog) + helpExit(
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{Err: err} })
	root.AddCommand(
		NewCmdProcess(f, nil),
		NewCmdProcessAll(f, nil),
		NewCmdStatus(f),
		NewCmdCostReport(f),
		NewCmdHealth(f),
		NewCmdRegistry(f),
		NewCmdDemo(f),
		NewCmdServe(f),
		NewCmdInit(f, nil),
		NewCmdDoctor(f, nil),
		NewCmdDomainGo(f),
		NewCmdDomainCmd(f),
	)
	finishTree(root)
	return root
}
