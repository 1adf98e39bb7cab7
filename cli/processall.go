package cli

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/cogworks/cogworks/engine"
	"github.com/cogworks/cogworks/github"
	"github.com/cogworks/cogworks/pipeline"
)

// ProcessAllOptions are the flags of `cogworks process-all`.
type ProcessAllOptions struct {
	Repo        string
	Workspace   string
	MaxSteps    int
	Concurrency int
	DryRun      bool
	Output      string
}

// Validate checks the flags.
func (o *ProcessAllOptions) Validate() error {
	if _, err := github.ParseRepo(o.Repo); err != nil {
		return fmt.Errorf("--repo: %w", err)
	}
	if o.Concurrency < 1 {
		return fmt.Errorf("--concurrency must be ≥ 1, got %d", o.Concurrency)
	}
	if o.MaxSteps < 1 {
		return fmt.Errorf("--max-steps must be ≥ 1, got %d", o.MaxSteps)
	}
	return validateOutput(o.Output, "text", "json")
}

// NewCmdProcessAll builds `cogworks process-all`.
func NewCmdProcessAll(f *Factory, runF func(context.Context, *ProcessAllOptions) error) *cobra.Command {
	opts := &ProcessAllOptions{}
	cmd := &cobra.Command{
		Use:   "process-all",
		Short: "Step every open work item of a repository (for cron)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Repo == "" {
				opts.Repo = f.getenv("GITHUB_REPOSITORY")
			}
			if opts.Workspace == "" {
				opts.Workspace = defaultWorkspace(f)
			}
			if err := opts.Validate(); err != nil {
				return &UsageError{Err: err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProcessAll(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY)")
	fl.StringVar(&opts.Workspace, "workspace", "", "local checkout of the target repository")
	fl.IntVar(&opts.MaxSteps, "max-steps", 1, "steps per work item")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "work items processed at once")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "decide and print, write nothing")
	fl.StringVar(&opts.Output, "output", "text", "output format: text|json")
	return cmd
}

func runProcessAll(ctx context.Context, f *Factory, opts *ProcessAllOptions) error {
	repo, _ := github.ParseRepo(opts.Repo)
	gh, err := f.Client(ctx)
	if err != nil {
		return err
	}
	issues, err := gh.SearchIssues(ctx, workItemQuery(repo))
	if err != nil {
		return fmt.Errorf("search work items in %s: %w", repo, err)
	}
	numbers := stepCandidates(issues)
	deps, err := f.engineDeps(ctx, repo, opts.Workspace, opts.DryRun)
	if err != nil {
		return err
	}
	var (
		mu      sync.Mutex
		results []engine.Result
		errs    []error
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	for _, n := range numbers {
		g.Go(func() error {
			d := deps
			d.RunID = newRunID()
			rs, err := engine.Run(gctx, d, engine.Ref{Repo: repo, Issue: n, CheckMerges: true}, opts.MaxSteps)
			mu.Lock()
			defer mu.Unlock()
			results = append(results, rs...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s#%d: %w", repo, n, err))
			}
			return nil // one work item's failure must not stop the others
		})
	}
	_ = g.Wait()
	sort.SliceStable(results, func(i, j int) bool { return results[i].Issue < results[j].Issue })
	if err := printResults(f.IO.Out, opts.Output, results); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// workItemQuery searches the open work items of repo that may still have
// something to do: completed ones are left out by the search itself, so a
// finished work item costs process-all no request at all.
func workItemQuery(repo github.Repo) string {
	return fmt.Sprintf("repo:%s is:issue is:open label:%q -label:%q",
		repo, pipeline.LabelRun, pipeline.StageLabel(pipeline.StageComplete))
}

// stepCandidates returns the numbers of the work items to step, each once
// so that no work item is processed twice at once even if search returns it
// twice. A failed work item is stepped only when a maintainer asked for a
// retry: GitHub search cannot express "failed and not retry" next to the
// other qualifiers, but the hits carry their labels, so the filter costs no
// request.
func stepCandidates(issues []github.Issue) []int {
	seen := map[int]bool{}
	var out []int
	for _, is := range issues {
		if is.IsPullRequest || seen[is.Number] {
			continue
		}
		if hasLabel(is, pipeline.StageLabel(pipeline.StageFailed)) && !hasLabel(is, pipeline.LabelRetry) {
			continue
		}
		seen[is.Number] = true
		out = append(out, is.Number)
	}
	sort.Ints(out)
	return out
}

// hasLabel compares label names as GitHub does, ignoring case.
func hasLabel(is github.Issue, name string) bool {
	for _, l := range is.Labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}
