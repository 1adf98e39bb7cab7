package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/cogworks/cogworks/internal/github"
)

// WakeOpenItems answers a move of repo's default branch (a push event, or
// the cron finding a PR behind its base): every work item with an open PR
// of the bot's gets, in turn, its normal step (Run with at most maxSteps
// steps and merges checked, so what reads the default branch — a gate
// passed by a merge, an amended specification — sees the move; 0 skips
// it) and then one restack step (Restack: its PRs updated with their
// base, conflicts resolved). One pass per item: bounded by the open PRs,
// whatever the push held. Finding the items costs one list of the open
// PRs; an item whose PRs are up to date costs reads only. One item's
// failure does not stop the others; the errors are joined.
func WakeOpenItems(ctx context.Context, d Deps, repo github.Repo, maxSteps int) ([]Result, error) {
	return Wake(ctx, d, repo, WakeOptions{MaxSteps: maxSteps})
}

// WakeOptions say how Wake wakes a repository's open work items.
type WakeOptions struct {
	// MaxSteps bounds each item's normal step (Run); 0 runs only the
	// restack (the cron, which stepped its items already).
	MaxSteps int
	// Include, when set, keeps only the items it accepts (a cron shard).
	Include func(issue int) bool
}

// Wake is WakeOpenItems with options.
func Wake(ctx context.Context, d Deps, repo github.Repo, opts WakeOptions) ([]Result, error) {
	if d.Restacker == nil {
		return nil, errors.New("engine: Deps.Restacker is nil: restacks are not wired")
	}
	items, err := d.Restacker.Items(ctx, StageInput{Repo: repo, Config: d.Config, RunID: d.RunID, BotLogin: d.BotLogin, Logger: d.logger()})
	if err != nil {
		return nil, asTransient(err)
	}
	var results []Result
	var errs []error
	for _, n := range items {
		if opts.Include != nil && !opts.Include(n) {
			continue
		}
		ref := Ref{Repo: repo, Issue: n, CheckMerges: true}
		if opts.MaxSteps > 0 {
			rs, err := Run(ctx, d, ref, opts.MaxSteps)
			results = append(results, rs...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s#%d: %w", repo, n, err))
				continue
			}
		}
		res, err := Restack(ctx, d, Ref{Repo: repo, Issue: n})
		results = append(results, res)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s#%d restack: %w", repo, n, err))
		}
	}
	return results, errors.Join(errs...)
}
