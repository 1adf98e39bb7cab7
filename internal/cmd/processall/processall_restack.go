package processall

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
)

// OpenPullsQuery searches the bot's open pull requests in scope: with
// --org, the repositories whose stacks the sweep restacks.
func OpenPullsQuery(scope, bot string) string {
	author := bot
	if slug, ok := strings.CutSuffix(bot, "[bot]"); ok {
		author = "app/" + slug
	}
	return fmt.Sprintf("%s is:pr is:open author:%s", scope, author)
}

// restackSweep gives every work item of this shard with an open PR of the
// bot's one restack step (engine.Wake without a normal step: the items
// labelled cogworks:run were stepped already), for the pushes to the
// default branch and the merges whose events were dropped or never
// subscribed to — and for the completed items, whose PRs wait for a
// human's merge and which the work-item search leaves out. An item whose
// PRs are up to date costs reads only: one list of the open PRs, and per
// PR one list of the closed PRs of its base, its base's head (once per
// base) and one compare. With --org, one search finds the repositories.
func restackSweep(ctx context.Context, f *factory.Factory, gh factory.Client, scope string, depsFor func(context.Context, github.Repo) (engine.Deps, error), opts *ProcessAllOptions) ([]engine.Result, error) {
	repos := []github.Repo{}
	if opts.Org == "" {
		repo, err := github.ParseRepo(opts.Repo)
		if err != nil {
			return nil, err
		}
		repos = append(repos, repo)
	} else {
		bot, err := f.OwnLogin(ctx, gh)
		if err != nil {
			return nil, err
		}
		prs, err := gh.SearchIssues(ctx, OpenPullsQuery(scope, bot))
		if err != nil && !errors.Is(err, github.ErrIncompleteSearch) {
			return nil, fmt.Errorf("search open pull requests to restack in %s: %w", scope, err)
		}
		seen := map[github.Repo]bool{}
		for _, pr := range prs {
			repo, err := github.ParseRepo(pr.Repository)
			if err != nil || seen[repo] {
				continue
			}
			seen[repo] = true
			repos = append(repos, repo)
		}
		sort.Slice(repos, func(i, j int) bool { return repos[i].String() < repos[j].String() })
	}
	var results []engine.Result
	var errs []error
	for _, repo := range repos {
		d, err := depsFor(ctx, repo)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if d.Restacker == nil {
			continue
		}
		d.RunID = factory.NewRunID()
		rs, err := engine.Wake(ctx, d, repo, engine.WakeOptions{Include: func(n int) bool { return inShard(n, opts.shardK, opts.ShardN) }})
		f.Metrics.ObserveSteps(rs)
		results = append(results, rs...)
		errs = append(errs, err)
	}
	return results, errors.Join(errs...)
}
