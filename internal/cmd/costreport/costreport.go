package costreport

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
)

// NewCmdCostReport builds `cogworks cost-report`.
func NewCmdCostReport(f *factory.Factory) *cobra.Command {
	var repoName, workspace string
	var issue int
	cmd := &cobra.Command{
		Use:   "cost-report",
		Short: "Print a work item's token and cost table (per stage, per sub-work-item, budget)",
		Long: `Print the work item's cost ledger (from its state snapshot) as a table per
stage and per sub-work-item, with the total, the budget of the repository's
config and what remains, and the model's price and where it comes from.` +
			factory.HelpEnv(factory.EnvRepo, factory.EnvWorkspace, factory.EnvGitHub, factory.EnvLLM+" (the model whose price is shown)", factory.EnvTrust, factory.EnvLog) +
			factory.HelpExit("0  printed",
				"1  GitHub could not be read, or the issue has no CogWorks status comment",
				"2  bad usage, a missing workspace or an invalid config"),
		Example: `  cogworks cost-report --repo acme/widgets --issue 42
  cogworks cost-report --issue 42 --workspace ~/src/widgets   # repo from $GITHUB_REPOSITORY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			factory.DefaultTarget(f, &repoName, &workspace)
			repo, err := github.ParseRepo(repoName)
			if err != nil {
				return &factory.UsageError{Err: fmt.Errorf("--repo: %w", err)}
			}
			if issue <= 0 {
				return &factory.UsageError{Err: fmt.Errorf("need --issue N")}
			}
			cfg, err := f.LoadConfig(workspace)
			if err != nil {
				return err
			}
			snap, err := factory.ReadSnapshot(cmd.Context(), f, repo, issue)
			if err != nil {
				return err
			}
			return factory.WriteCostReport(f.IO.Out, snap, f.Budget(cfg))
		},
	}
	cmd.Flags().StringVar(&repoName, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY, else the origin remote)")
	cmd.Flags().IntVar(&issue, "issue", 0, "issue number of the work item")
	cmd.Flags().StringVar(&workspace, "workspace", "", "repository checkout holding .cogworks/config.toml, for the budget (default $GITHUB_WORKSPACE or .)")
	return cmd
}
