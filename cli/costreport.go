package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/audit"
	"github.com/cogworks/cogworks/config"
	"github.com/cogworks/cogworks/github"
)

// NewCmdCostReport builds `cogworks cost-report`.
func NewCmdCostReport(f *Factory) *cobra.Command {
	var repoName, workspace string
	var issue int
	cmd := &cobra.Command{
		Use:   "cost-report",
		Short: "Print a work item's token and cost table (per stage, per sub-work-item, budget)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repoName == "" {
				repoName = f.getenv("GITHUB_REPOSITORY")
			}
			repo, err := github.ParseRepo(repoName)
			if err != nil {
				return &UsageError{Err: fmt.Errorf("--repo: %w", err)}
			}
			if issue <= 0 {
				return &UsageError{Err: fmt.Errorf("need --issue N")}
			}
			if workspace == "" {
				workspace = defaultWorkspace(f)
			}
			cfg, err := config.Load(workspace)
			if err != nil {
				return &UsageError{Err: err}
			}
			snap, err := ReadSnapshot(cmd.Context(), f, repo, issue)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(f.IO.Out, audit.CostTable(snap.Ledger, cfg.Budgets.PipelineMaxTokens, cfg.Budgets.PipelineMaxCostUSD))
			return err
		},
	}
	cmd.Flags().StringVar(&repoName, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY)")
	cmd.Flags().IntVar(&issue, "issue", 0, "issue number of the work item")
	cmd.Flags().StringVar(&workspace, "workspace", "", "repository checkout holding .cogworks/config.toml (for the budgets)")
	return cmd
}
