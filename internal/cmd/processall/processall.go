package processall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/process"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/gitremote"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/workspace"
	"github.com/cogworks/cogworks/pipeline"
)

// ProcessAllOptions are the flags of `cogworks process-all`.
type ProcessAllOptions struct {
	Repo        string
	Org         string
	Workspace   string
	MaxSteps    int
	Concurrency int
	DryRun      bool
	Output      string
	// Shard is "k/n": only issues whose number ≡ k (mod n); "" for all.
	Shard       string
	MetricsFile string
	Pushgateway string
	// RateReserve is the number of REST requests of the rate-limit window
	// left unused: no work item starts below it (0 disables).
	RateReserve int
	// CommandWindow is how far back stopped and failed pipelines are
	// searched for /cogworks commands (processall_commands.go); 0 turns
	// the search off.
	CommandWindow time.Duration

	shardK, ShardN int
	// commandsSince is the start of the command window (zero: off).
	CommandsSince time.Time
}

// scope is the search qualifier of the run: "org:<login>" with --org,
// else "repo:<owner/name>".
func (o *ProcessAllOptions) scope() string {
	if o.Org != "" {
		return "org:" + o.Org
	}
	return "repo:" + o.Repo
}

// Validate checks the flags.
func (o *ProcessAllOptions) Validate() error {
	switch {
	case o.Org != "" && o.Repo != "":
		return errors.New("--repo and --org are mutually exclusive")
	case o.Org != "":
		if strings.ContainsAny(o.Org, "/ \t:") {
			return fmt.Errorf("--org: want an organisation login, got %q", o.Org)
		}
	default:
		if _, err := github.ParseRepo(o.Repo); err != nil {
			return fmt.Errorf("--repo: %w", err)
		}
	}
	if o.Concurrency < 1 {
		return fmt.Errorf("--concurrency must be ≥ 1, got %d", o.Concurrency)
	}
	if o.MaxSteps < 1 {
		return fmt.Errorf("--max-steps must be ≥ 1, got %d", o.MaxSteps)
	}
	if o.RateReserve < 0 {
		return fmt.Errorf("--rate-reserve must be ≥ 0, got %d", o.RateReserve)
	}
	if o.CommandWindow < 0 {
		return fmt.Errorf("--command-window must be ≥ 0, got %s", o.CommandWindow)
	}
	k, n, err := parseShard(o.Shard)
	if err != nil {
		return err
	}
	o.shardK, o.ShardN = k, n
	return factory.ValidateOutput(o.Output, "text", "json")
}

// parseShard parses "k/n" (0 ≤ k < n); "" means one shard holding
// everything (0/1).
func parseShard(s string) (k, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	bad := func(why string) (int, int, error) {
		return 0, 0, fmt.Errorf("--shard %q: %s (want k/n with 0 ≤ k < n, e.g. 0/4)", s, why)
	}
	ks, ns, ok := strings.Cut(s, "/")
	if !ok {
		return bad("no slash")
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	switch {
	case err1 != nil || err2 != nil:
		return bad("not two integers")
	case n < 1:
		return bad("n must be ≥ 1")
	case k < 0 || k >= n:
		return bad("k must be in [0, n)")
	}
	return k, n, nil
}

// inShard reports whether issue number belongs to shard k of n.
func inShard(number, k, n int) bool { return number%n == k }

// NewCmdProcessAll builds `cogworks process-all`.
func NewCmdProcessAll(f *factory.Factory, runF func(context.Context, *ProcessAllOptions) error) *cobra.Command {
	opts := &ProcessAllOptions{}
	cmd := &cobra.Command{
		Use:   "process-all",
		Short: "Step every open work item of a repository or organisation (for cron)",
		Long: `Step every open issue labelled cogworks:run. With --shard k/n only issues whose
number ≡ k (mod n) are stepped, so n cron jobs or an Actions matrix split the
work. With --org every repository of the organisation is searched; each
repository's .cogworks/config.toml and files are then read through the API
(no checkout needed). --metrics-file writes Prometheus metrics in the text
format for the node-exporter textfile collector; --pushgateway pushes them.

Once GitHub's REST rate limit (1,000 requests an hour per repository for an
Actions token) has fewer than --rate-reserve requests left, no further work
item starts: each is reported with outcome "deferred" and the time the
window resets, and the next run takes it. Steps already running finish.

A /cogworks command whose own run never happened is answered too: stopped
pipelines (no cogworks:run) and failed ones updated within --command-window
are stepped, and the step handles any command still pending on them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Workspace == "" && opts.Org == "" {
				opts.Workspace = factory.DefaultWorkspace(f)
			}
			if opts.Repo == "" && opts.Org == "" {
				opts.Repo = gitremote.DefaultRepo(f.Env, opts.Workspace)
			}
			if err := opts.Validate(); err != nil {
				return &factory.UsageError{Err: err}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProcessAll(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Repo, "repo", "", "repository owner/name (default $GITHUB_REPOSITORY, else the origin remote)")
	fl.StringVar(&opts.Org, "org", "", "step work items in every repository of this organisation")
	fl.StringVar(&opts.Workspace, "workspace", "", "local checkout of the target repository (with --org: a cache directory for API-fetched trees)")
	fl.IntVar(&opts.MaxSteps, "max-steps", 1, "steps per work item")
	fl.IntVar(&opts.Concurrency, "concurrency", 4, "work items processed at once")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "decide and print, write nothing")
	fl.StringVar(&opts.Output, "output", "text", "output format: text|json")
	fl.StringVar(&opts.Shard, "shard", "", "process only issues whose number ≡ k mod n (k/n)")
	fl.StringVar(&opts.MetricsFile, "metrics-file", "", "write Prometheus metrics (text format, atomic rename) to this file")
	fl.StringVar(&opts.Pushgateway, "pushgateway", "", "push Prometheus metrics to this Pushgateway URL")
	fl.IntVar(&opts.RateReserve, "rate-reserve", 100, "start no work item once the GitHub REST rate limit has fewer requests left than this (0: no reserve)")
	fl.DurationVar(&opts.CommandWindow, "command-window", defaultCommandWindow, "also step stopped and failed pipelines updated this recently, for /cogworks commands (0: off)")
	return cmd
}

// workItemKey names a work item.
type workItemKey struct {
	repo   github.Repo
	number int
}

// workItem is one issue to step.
type workItem struct {
	repo   github.Repo
	number int
	// issue is the issue as search showed it: the first step takes its
	// labels instead of reading the issue again.
	issue *github.Issue
	// command: stepped for a /cogworks command it may hold, so the step
	// reads its comments even without cogworks:run (a stopped pipeline).
	command bool
}

// workItemQuery searches the open work items in scope ("repo:o/r" or
// "org:o") that may still have something to do: completed ones are left
// out by the search itself, so a finished work item costs process-all no
// request at all.
func workItemQuery(scope string) string {
	return fmt.Sprintf("%s is:issue is:open label:%q -label:%q",
		scope, pipeline.LabelRun, pipeline.StageLabel(pipeline.StageComplete))
}

func runProcessAll(ctx context.Context, f *factory.Factory, opts *ProcessAllOptions) (err error) {
	if opts.ShardN == 0 {
		opts.shardK, opts.ShardN = 0, 1
	}
	if opts.MetricsFile != "" || opts.Pushgateway != "" {
		if f.Metrics == nil {
			f.Metrics = metrics.New(metrics.Options{})
		}
		defer func() { err = errors.Join(err, exportMetrics(ctx, f.Metrics, opts)) }()
	}
	gh, err := f.Client(ctx)
	if err != nil {
		return err
	}
	scope := opts.scope()
	issues, err := gh.SearchIssues(ctx, workItemQuery(scope))
	switch {
	case errors.Is(err, github.ErrIncompleteSearch):
		// The work items found still get their step; the next run
		// searches again and finds the rest.
		f.Logger().Warn("search was incomplete: stepping the work items found", "scope", scope, "found", len(issues))
	case err != nil:
		return fmt.Errorf("search work items in %s: %w", scope, err)
	}
	if opts.CommandWindow > 0 {
		now := time.Now
		if f.Clock != nil {
			now = f.Clock
		}
		opts.CommandsSince = now().Add(-opts.CommandWindow)
		more, err := gh.SearchIssues(ctx, commandQuery(scope, opts.CommandsSince))
		if err != nil {
			// The label search's work items still get their step; the
			// next run searches for commands again.
			f.Logger().Warn("search for /cogworks commands on stopped pipelines failed: stepping the others", "scope", scope, "found", len(more), "err", err)
		}
		issues = append(issues, more...)
	}
	items, err := selectWork(issues, opts)
	if err != nil {
		return err
	}
	depsFor, cleanup, err := depsResolver(ctx, f, gh, opts)
	if err != nil {
		return err
	}
	defer cleanup()
	var (
		mu      sync.Mutex
		results []engine.Result
		errs    []error
	)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(opts.Concurrency)
	reserve := factory.NewRateReserve(gh, opts.RateReserve)
	for _, it := range items {
		g.Go(func() error {
			// Checked once the item has a slot, just before it starts, so
			// the figures include every step that ran before it.
			if why := reserve.Short(gctx); why != "" {
				mu.Lock()
				defer mu.Unlock()
				results = append(results, engine.Result{Issue: it.number, Outcome: factory.OutcomeDeferred, Reason: why})
				return nil
			}
			rs, err := func() ([]engine.Result, error) {
				d, err := depsFor(gctx, it.repo)
				if err != nil {
					return nil, err
				}
				d.RunID = factory.NewRunID()
				return engine.Run(gctx, d, engine.Ref{Repo: it.repo, Issue: it.number, CheckMerges: true, Known: it.issue, CommentEvent: it.command}, opts.MaxSteps)
			}()
			f.Metrics.ObserveSteps(rs)
			mu.Lock()
			defer mu.Unlock()
			results = append(results, rs...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s#%d: %w", it.repo, it.number, err))
			}
			return nil // one work item's failure must not stop the others
		})
	}
	_ = g.Wait()
	if opts.CommandWindow > 0 {
		rs, err := reviseFound(ctx, f, gh, depsFor, opts)
		results = append(results, rs...)
		errs = append(errs, err)
	}
	rs, err := restackSweep(ctx, f, gh, scope, depsFor, opts)
	results = append(results, rs...)
	errs = append(errs, err)
	sort.SliceStable(results, func(i, j int) bool { return results[i].Issue < results[j].Issue })
	if err := process.PrintResults(f.IO.Out, opts.Output, results); err != nil {
		return err
	}
	return errors.Join(errs...)
}

// selectWork keeps each issue of this shard once, grouped by repository.
func selectWork(issues []github.Issue, opts *ProcessAllOptions) ([]workItem, error) {
	seen := map[workItemKey]bool{}
	var out []workItem
	for _, is := range issues {
		if is.IsPullRequest || !inShard(is.Number, opts.shardK, opts.ShardN) {
			continue
		}
		full := opts.Repo
		if opts.Org != "" {
			full = is.Repository
		}
		repo, err := github.ParseRepo(full)
		if err != nil {
			return nil, fmt.Errorf("search result #%d: repository %q: %w", is.Number, full, err)
		}
		key := workItemKey{repo: repo, number: is.Number}
		if seen[key] {
			continue
		}
		// A failed work item is stepped only when a maintainer asked for a
		// retry (search cannot say "failed and not retry" next to the
		// other qualifiers, but the hits carry their labels), or when a
		// /cogworks retry comment may wait on it; so is a stopped one.
		failed := is.HasLabel(pipeline.StageLabel(pipeline.StageFailed)) && !is.HasLabel(pipeline.LabelRetry)
		stopped := !is.HasLabel(pipeline.LabelRun)
		if (failed || stopped) && !mayHoldCommand(is, opts.CommandsSince) {
			continue
		}
		seen[key] = true
		found := is
		out = append(out, workItem{repo: repo, number: is.Number, issue: &found, command: failed || stopped})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].repo != out[j].repo {
			return out[i].repo.String() < out[j].repo.String()
		}
		return out[i].number < out[j].number
	})
	return out, nil
}

// depsResolver returns the step dependencies per repository: the local
// workspace for --repo, and for --org each repository's default branch
// fetched through the API (memoised per repository for this run). Call
// cleanup when the run is over: without --workspace the trees live in a
// temporary directory of this run, which a cron on a long-lived machine
// must not leave behind.
func depsResolver(ctx context.Context, f *factory.Factory, gh factory.Client, opts *ProcessAllOptions) (resolve func(context.Context, github.Repo) (engine.Deps, error), cleanup func(), err error) {
	cleanup = func() {}
	if opts.Org == "" {
		repo, _ := github.ParseRepo(opts.Repo)
		deps, err := f.EngineDeps(ctx, repo, opts.Workspace, opts.DryRun)
		if err != nil {
			return nil, cleanup, err
		}
		return func(context.Context, github.Repo) (engine.Deps, error) { return deps, nil }, cleanup, nil
	}
	wgh, ok := gh.(workspace.GitHub)
	if !ok {
		return nil, cleanup, fmt.Errorf("GitHub client %T cannot read repository archives", gh)
	}
	root := opts.Workspace
	if root == "" {
		// f.Getenv("TMPDIR") is os.TempDir's own choice, read through the
		// factory so tests can point it elsewhere.
		dir, err := os.MkdirTemp(f.Getenv("TMPDIR"), "cogworks-org-")
		if err != nil {
			return nil, cleanup, fmt.Errorf("workspace cache: %w", err)
		}
		root = dir
		cleanup = func() { _ = os.RemoveAll(dir) }
	}
	cache := &workspace.Cache{Root: root}
	var (
		mu   sync.Mutex
		memo = map[github.Repo]engine.Deps{}
	)
	return func(ctx context.Context, repo github.Repo) (engine.Deps, error) {
		mu.Lock()
		defer mu.Unlock()
		if d, ok := memo[repo]; ok {
			return d, nil
		}
		co, err := cache.Head(ctx, wgh, repo)
		if err != nil {
			return engine.Deps{}, err
		}
		d, err := f.EngineDepsWith(ctx, gh, co, opts.DryRun)
		if err != nil {
			return engine.Deps{}, err
		}
		memo[repo] = d
		return d, nil
	}, cleanup, nil
}

// exportMetrics writes and/or pushes the run's metrics.
func exportMetrics(ctx context.Context, m *metrics.Metrics, opts *ProcessAllOptions) error {
	var errs []error
	if opts.MetricsFile != "" {
		errs = append(errs, m.WriteFile(opts.MetricsFile))
	}
	if opts.Pushgateway != "" {
		grouping := map[string]string{}
		if opts.Shard != "" {
			grouping["shard"] = strings.ReplaceAll(opts.Shard, "/", "-of-")
		}
		errs = append(errs, m.Push(context.WithoutCancel(ctx), opts.Pushgateway, "cogworks", grouping))
	}
	return errors.Join(errs...)
}

// reviseFound runs a revision step for each of the bot's open PRs in the
// run's scope updated in the command window (opts.CommandsSince on;
// engine.RevisionQuery): the reviews whose
// events were dropped. A PR with nothing awaiting an answer costs reads only.
// Each PR also gets a CI revision step (engine.ReviseCI) on its current
// head, for the check and workflow runs whose events were dropped: a push
// updates its PR, so a head pushed within the window is swept, and one
// whose checks did not fail costs five reads (the PR, the PR again for the
// cycle's check, its head, its check runs, its workflow runs) and no write;
// one whose failure CogWorks already escalated or reported at that head
// costs a sixth (the PR's comments) and no write either. The restacks are
// restackSweep's.
func reviseFound(ctx context.Context, f *factory.Factory, gh factory.Client, depsFor func(context.Context, github.Repo) (engine.Deps, error), opts *ProcessAllOptions) ([]engine.Result, error) {
	scope, since := opts.scope(), opts.CommandsSince
	bot, err := f.OwnLogin(ctx, gh)
	if err != nil {
		return nil, err
	}
	prs, err := gh.SearchIssues(ctx, engine.RevisionQuery(scope, bot, since))
	if err != nil && !errors.Is(err, github.ErrIncompleteSearch) {
		return nil, fmt.Errorf("search pull requests to revise in %s: %w", scope, err)
	}
	var results []engine.Result
	var errs []error
	for _, pr := range prs {
		full := opts.Repo
		if opts.Org != "" {
			full = pr.Repository
		}
		repo, err := github.ParseRepo(full)
		if err != nil || !pr.IsPullRequest || !inShard(pr.Number, opts.shardK, opts.ShardN) {
			continue
		}
		d, err := depsFor(ctx, repo)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d.Reviser == nil {
			continue
		}
		d.RunID = factory.NewRunID()
		res, err := engine.Revise(ctx, d, engine.RevisionRef{Repo: repo, PR: pr.Number})
		results = append(results, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s#%d: %w", repo, pr.Number, err))
		}
		if d.CIReviser == nil {
			continue
		}
		d.RunID = factory.NewRunID()
		res, err = engine.ReviseCI(ctx, d, engine.RevisionRef{Repo: repo, PR: pr.Number}, "")
		results = append(results, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s#%d CI: %w", repo, pr.Number, err))
		}
	}
	return results, errors.Join(errs...)
}
