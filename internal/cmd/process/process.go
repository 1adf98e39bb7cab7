package process

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/gitremote"
)

// ProcessOptions are the flags of `cogworks process`.
type ProcessOptions struct {
	Repo      string
	Issue     int
	EventPath string
	Workspace string
	MaxSteps  int
	DryRun    bool
	Output    string
	// SummaryFile receives a Markdown step summary (default
	// $GITHUB_STEP_SUMMARY); OutputsFile the step outputs stage, outcome,
	// pull-requests and issue (default $GITHUB_OUTPUT). Empty: not written.
	SummaryFile string
	OutputsFile string
}

// Validate checks flag combinations.
func (o *ProcessOptions) Validate() error {
	if o.EventPath == "" && o.Issue <= 0 {
		return errors.New("need --issue N or --event PATH")
	}
	if o.EventPath != "" && o.Issue > 0 {
		return errors.New("--issue and --event are mutually exclusive")
	}
	if o.MaxSteps < 1 {
		return fmt.Errorf("--max-steps must be ≥ 1, got %d", o.MaxSteps)
	}
	return factory.ValidateOutput(o.Output, "text", "json")
}

// NewCmdProcess builds `cogworks process`. runF replaces the run function
// in tests.
func NewCmdProcess(f *factory.Factory, runF func(context.Context, *ProcessOptions) error) *cobra.Command {
	opts := &ProcessOptions{}
	cmd := &cobra.Command{
		Use:   "process",
		Short: "Run the step function for one work item",
		Long: `Run the step function for one issue: wake up, take the lock, run the current
stage's next action, write the results and release the lock. With --max-steps K
it repeats until the pipeline waits, finishes, fails or K steps ran.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Workspace == "" {
				opts.Workspace = factory.DefaultWorkspace(f)
			}
			if opts.Repo == "" && opts.EventPath == "" {
				opts.Repo = gitremote.DefaultRepo(f.Env, opts.Workspace)
			}
			if !cmd.Flags().Changed("summary-file") {
				opts.SummaryFile = f.Env("GITHUB_STEP_SUMMARY")
			}
			if !cmd.Flags().Changed("outputs-file") {
				opts.OutputsFile = f.Env("GITHUB_OUTPUT")
			}
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProcess(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY, else the origin remote)")
	fl.IntVar(&opts.Issue, "issue", 0, "issue number of the work item")
	fl.StringVar(&opts.EventPath, "event", "", "GitHub event payload file (issues, issue_comment, pull_request), as $GITHUB_EVENT_PATH")
	fl.StringVar(&opts.Workspace, "workspace", "", "local checkout of the target repository (default $GITHUB_WORKSPACE or .)")
	fl.IntVar(&opts.MaxSteps, "max-steps", 1, "repeat steps until the pipeline waits, finishes or fails, at most this many")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "decide and print, write nothing")
	fl.StringVar(&opts.Output, "output", "text", "output format: text|json")
	fl.StringVar(&opts.SummaryFile, "summary-file", "", "append a Markdown summary (steps, pull requests, cost) to this file (default $GITHUB_STEP_SUMMARY)")
	fl.StringVar(&opts.OutputsFile, "outputs-file", "", "append stage, outcome, pull-requests and issue as name=value lines (default $GITHUB_OUTPUT)")
	return cmd
}

// target resolves the work item from flags or the event payload.
func (o *ProcessOptions) target() (factory.EventTarget, error) {
	if o.EventPath != "" {
		t, err := factory.ReadEvent(o.EventPath)
		if err != nil {
			return factory.EventTarget{}, &factory.UsageError{Err: err}
		}
		return t, nil
	}
	repo, err := github.ParseRepo(o.Repo)
	if err != nil {
		return factory.EventTarget{}, &factory.UsageError{Err: fmt.Errorf("--repo: %w", err)}
	}
	return factory.EventTarget{Repo: repo, Issue: o.Issue}, nil
}

func runProcess(ctx context.Context, f *factory.Factory, opts *ProcessOptions) error {
	// The trigger check comes first: an event for an issue without
	// cogworks:run exits here, before any GitHub client, LLM provider or
	// domain service exists.
	t, err := opts.target()
	if err != nil {
		return err
	}
	report := runReport{Repo: t.Repo, Issue: t.Issue, Ignored: t.Ignore}
	if t.Ignore != "" {
		f.Logger().Info("event ignored: nothing to do", "reason", t.Ignore)
		return writeReport(f, opts, report)
	}
	report.Results, report.Err = stepIssue(ctx, f, opts, t, &report)
	if perr := PrintResults(f.IO.Out, opts.Output, report.Results); perr != nil {
		return perr
	}
	if werr := writeReport(f, opts, report); werr != nil && report.Err == nil {
		return werr
	}
	return report.Err
}

// stepIssue runs the step function and, when a summary or outputs are
// wanted, reads the state snapshot the run left.
func stepIssue(ctx context.Context, f *factory.Factory, opts *ProcessOptions, t factory.EventTarget, report *runReport) ([]engine.Result, error) {
	deps, err := f.EngineDeps(ctx, t.Repo, opts.Workspace, opts.DryRun)
	if err != nil {
		return nil, err
	}
	report.BudgetTokens, report.BudgetUSD = deps.Config.Budgets.PipelineMaxTokens, deps.Config.Budgets.PipelineMaxCostUSD
	if t.CIPR != 0 {
		res, err := engine.ReviseCI(ctx, deps, engine.RevisionRef{Repo: t.Repo, Issue: t.Issue, PR: t.CIPR}, t.CIHead)
		return []engine.Result{res}, err
	}
	if t.RevisePR != 0 {
		res, err := engine.Revise(ctx, deps, engine.RevisionRef{Repo: t.Repo, Issue: t.Issue, PR: t.RevisePR})
		return []engine.Result{res}, err
	}
	results, err := engine.Run(ctx, deps, engine.Ref{Repo: t.Repo, Issue: t.Issue, CheckMerges: t.CheckMerges, CommentEvent: t.CommentEvent, Known: t.Known}, opts.MaxSteps)
	if t.Restack && err == nil && deps.Restacker != nil {
		// A lower PR of the stack was merged: retarget and update the
		// item's other PRs, under its lock, once the step released it.
		res, rerr := engine.Restack(ctx, deps, engine.Ref{Repo: t.Repo, Issue: t.Issue})
		results, err = append(results, res), rerr
	}
	if opts.SummaryFile != "" || opts.OutputsFile != "" {
		if snap, serr := factory.ReadSnapshot(ctx, f, t.Repo, t.Issue); serr == nil {
			report.Snapshot = &snap
		} else {
			f.Logger().Debug("no state snapshot for the summary", "error", serr)
		}
	}
	return results, err
}

// writeReport appends the step summary and the step outputs where asked.
// Both are public on the workflow run, and errors and reasons in them may
// quote a secret: they pass through the factory's Redactor.
func writeReport(f *factory.Factory, opts *ProcessOptions, r runReport) error {
	var errs []error
	if opts.SummaryFile != "" {
		errs = append(errs, appendFile(opts.SummaryFile, f.Redactor().Redact(r.Markdown())))
	}
	if opts.OutputsFile != "" {
		errs = append(errs, appendFile(opts.OutputsFile, f.Redactor().Redact(r.Outputs())))
	}
	if err := errors.Join(errs...); err != nil {
		f.Logger().Error("write GitHub Actions summary or outputs", "error", err)
		return err
	}
	return nil
}

// PrintResults writes one line per step result, as text or JSON lines.
func PrintResults(w io.Writer, format string, results []engine.Result) error {
	for _, r := range results {
		if format == "json" {
			line, err := json.Marshal(r)
			if err != nil {
				return fmt.Errorf("encode step result: %w", err)
			}
			if _, err := fmt.Fprintf(w, "%s\n", line); err != nil {
				return err
			}
			continue
		}
		outcome := string(r.Outcome)
		if r.Outcome == engine.OutcomeAdvanced && strings.HasSuffix(string(r.Action), "(dry run)") {
			outcome = "would advance"
		}
		if _, err := fmt.Fprintf(w, "#%d %-20s %-16s %-13s %3d requests %5d ms  %s\n",
			r.Issue, r.Stage, r.Action, outcome, r.GitHubRequests, r.DurationMS, r.Reason); err != nil {
			return err
		}
	}
	return nil
}
