package status

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
)

// StatusOptions are the flags of `cogworks status`.
type StatusOptions struct {
	Repo      string
	Issue     int
	Workspace string
	Output    string
}

// NewCmdStatus builds `cogworks status`.
func NewCmdStatus(f *factory.Factory) *cobra.Command {
	opts := &StatusOptions{}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show where a work item stands (text, json or the Mermaid state diagram)",
		Long: `Read a work item's state snapshot from its status comment and show the stage,
the waiting gate or failure, the artifacts, the sub-work-items and the cost so
far against the budget of the repository's config (the same budget the
pipeline enforces and cost-report shows).` + factory.HelpEnv(factory.EnvRepo, factory.EnvWorkspace, factory.EnvGitHub, factory.EnvLLM+" (the model the budget is priced with)", factory.EnvTrust, factory.EnvLog) + factory.HelpExit(
			"0  shown",
			"1  GitHub could not be read, or the issue has no CogWorks status comment",
			"2  bad usage, a missing workspace or an invalid config"),
		Example: `  cogworks status --repo acme/widgets --issue 42
  cogworks status --repo acme/widgets --issue 42 --output json | jq .stage
  cogworks status --output mermaid            # the whole state machine`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			factory.DefaultTarget(f, &opts.Repo, &opts.Workspace)
			if err := factory.ValidateOutput(opts.Output, "text", "json", "mermaid"); err != nil {
				return &factory.UsageError{Err: err}
			}
			if opts.Issue <= 0 && opts.Output != "mermaid" {
				return &factory.UsageError{Err: fmt.Errorf("need --issue N")}
			}
			return runStatus(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Repo, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY, else the origin remote)")
	cmd.Flags().IntVar(&opts.Issue, "issue", 0, "issue number of the work item (optional with --output mermaid)")
	cmd.Flags().StringVar(&opts.Workspace, "workspace", "", "repository checkout holding .cogworks/config.toml, for the budget (default $GITHUB_WORKSPACE or .)")
	cmd.Flags().StringVar(&opts.Output, "output", "text", "output format: text|json|mermaid")
	return cmd
}

// statusJSON is `status --output json`: the snapshot's fields plus the
// budget in force.
type statusJSON struct {
	pipeline.Snapshot
	Budget budgetJSON `json:"budget"`
}

// budgetJSON is the budget as JSON (snake_case like every CogWorks output).
type budgetJSON struct {
	MaxTokens          int     `json:"max_tokens"`
	MaxCostUSD         float64 `json:"max_cost_usd"`
	Model              string  `json:"model"`
	Priced             bool    `json:"priced"`
	InputPricePerMTok  float64 `json:"input_price_per_mtok"`
	OutputPricePerMTok float64 `json:"output_price_per_mtok"`
	Warning            string  `json:"warning,omitempty"`
}

func budgetOf(b llm.PipelineBudget) budgetJSON {
	return budgetJSON{MaxTokens: b.MaxTokens, MaxCostUSD: b.MaxCostUSD, Model: b.Model, Priced: b.Priced,
		InputPricePerMTok: b.Price.InputPerMTok, OutputPricePerMTok: b.Price.OutputPerMTok, Warning: b.Warning()}
}

func runStatus(ctx context.Context, f *factory.Factory, opts *StatusOptions) error {
	machine := pipeline.StateMachine()
	if opts.Issue <= 0 {
		_, err := fmt.Fprintln(f.IO.Out, machine.Mermaid(""))
		return err
	}
	repo, err := github.ParseRepo(opts.Repo)
	if err != nil {
		return &factory.UsageError{Err: fmt.Errorf("--repo: %w", err)}
	}
	cfg, err := f.LoadConfig(opts.Workspace)
	if err != nil {
		return err
	}
	budget := f.Budget(cfg)
	snap, err := factory.ReadSnapshot(ctx, f, repo, opts.Issue)
	if err != nil {
		return err
	}
	switch opts.Output {
	case "json":
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(statusJSON{Snapshot: snap, Budget: budgetOf(budget)})
	case "mermaid":
		// The item's own path: a design-skipping bug fix has no
		// architecture or interface-design states.
		variant, err := machine.Variant(snap.Skipped)
		if err != nil {
			return fmt.Errorf("status of %s#%d: %w", repo, opts.Issue, err)
		}
		_, err = fmt.Fprintln(f.IO.Out, variant.Mermaid(pipeline.StateForStage(snap.Stage)))
		return err
	}
	w := f.IO.Out
	fmt.Fprintf(w, "%s#%d  stage: %s\n", repo, opts.Issue, factory.OrNone(string(snap.Stage)))
	if len(snap.Skipped) > 0 {
		fmt.Fprintf(w, "path: skips %s\n", joinStages(snap.Skipped))
	}
	if snap.Gate != nil {
		fmt.Fprintf(w, "gate: waiting for %s after %s since %s\n", pipeline.LabelApprove, snap.Gate.Stage, snap.Gate.Since.Format("2006-01-02 15:04 MST"))
	}
	if snap.Failure != nil {
		fmt.Fprintf(w, "failed at %s: %s\n", snap.Failure.Stage, snap.Failure.Reason)
	}
	if snap.Artifacts.SpecPR > 0 {
		fmt.Fprintf(w, "spec PR: #%d\n", snap.Artifacts.SpecPR)
	}
	if snap.Artifacts.InterfacePR > 0 {
		fmt.Fprintf(w, "interface PR: #%d\n", snap.Artifacts.InterfacePR)
	}
	for _, swi := range snap.SubWorkItems {
		fmt.Fprintf(w, "  %d. %s  #%d  %s  PR #%d\n", swi.Order, swi.ID, swi.Issue, swi.Status, swi.PR)
	}
	if warning := budget.Warning(); warning != "" {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	return factory.WriteCostReport(w, snap, budget)
}

func joinStages(stages []pipeline.Stage) string {
	names := make([]string, len(stages))
	for i, st := range stages {
		names[i] = string(st)
	}
	return strings.Join(names, ", ")
}
