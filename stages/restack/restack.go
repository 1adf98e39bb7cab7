package restack

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/revision"
)

// GitHub is what restacking uses.
type GitHub interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
	RetargetPull(ctx context.Context, repo github.Repo, number int, base string) error
	UpdatePullBranch(ctx context.Context, repo github.Repo, number int, expectedHead string) error
	GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error)
	Compare(ctx context.Context, repo github.Repo, base, head string) (github.Comparison, error)
	ListComments(ctx context.Context, repo github.Repo, number int) ([]github.Comment, error)
}

// Restacker restacks one repository's CogWorks pull requests.
type Restacker struct {
	GitHub GitHub
	// Bot is CogWorks's login: only its own pull requests are touched.
	Bot string
	// Item, when set, limits the pass to the pull requests of that work
	// item (heads cogworks/<Item>/…), whose lock the caller holds.
	Item int
	// MaxCycles is the cap of conflict resolutions per pull request
	// (Resolver.MaxCycles), for Check's escalated conflicts.
	MaxCycles int
}

// Result says what a pass did to each pull request.
type Result struct {
	// Retargeted maps a pull request to its new base.
	Retargeted map[int]string
	// Updated are the pull requests whose branch got the base merged in.
	Updated []int
	// Conflicts are the pull requests whose base does not merge cleanly:
	// each needs a revision whose feedback is the conflict.
	Conflicts []int
}

// maxDepth bounds the walk down a stack of merged bases.
const maxDepth = 10

// Restack retargets CogWorks's open pull requests whose base branch
// belongs to a merged pull request onto that pull request's own base (as
// far down as merges go), then updates every one of them with its base.
func (s Restacker) Restack(ctx context.Context, repo github.Repo) (Result, error) {
	res := Result{Retargeted: map[int]string{}}
	open, err := s.GitHub.ListPulls(ctx, repo, github.PullFilter{State: "open"})
	if err != nil {
		return Result{}, fmt.Errorf("restack %s: %w", repo, err)
	}
	slices.SortFunc(open, func(a, b github.PullRequest) int { return a.Number - b.Number })
	for _, p := range open {
		if !s.ours(p) {
			continue
		}
		base, err := s.liveBase(ctx, repo, p.Base)
		if err != nil {
			return Result{}, err
		}
		if base != p.Base {
			if err := s.GitHub.RetargetPull(ctx, repo, p.Number, base); err != nil {
				return Result{}, fmt.Errorf("restack %s: %w", repo, err)
			}
			res.Retargeted[p.Number] = base
		}
		err = s.GitHub.UpdatePullBranch(ctx, repo, p.Number, p.HeadSHA)
		switch {
		case err == nil:
			res.Updated = append(res.Updated, p.Number)
		case errors.Is(err, github.ErrBranchUpToDate):
		case errors.Is(err, github.ErrUnprocessable):
			// A conflict (or a head that moved under us: the next pass
			// sees it); the branch is as it was.
			res.Conflicts = append(res.Conflicts, p.Number)
		default:
			return Result{}, fmt.Errorf("restack %s: %w", repo, err)
		}
	}
	return res, nil
}

// liveBase follows base down the stack while it is the head branch of a
// merged pull request, and returns the first base that is not.
func (s Restacker) liveBase(ctx context.Context, repo github.Repo, base string) (string, error) {
	for range maxDepth {
		prs, err := s.GitHub.ListPulls(ctx, repo, github.PullFilter{State: "closed", Head: base})
		if err != nil {
			return "", fmt.Errorf("restack %s: find the pull request of %s: %w", repo, base, err)
		}
		next := ""
		for _, q := range prs {
			if q.Merged && q.Head == base {
				next = q.Base
			}
		}
		if next == "" {
			return base, nil
		}
		base = next
	}
	return base, nil
}

// Due is what a Restack would do, read without a write.
type Due struct {
	// Stale are the pull requests whose base branch is the head of a
	// merged pull request: those a Restack would retarget.
	Stale []int
	// Behind are the pull requests, on a live base, whose head lacks
	// commits of their base (main moved): those a Restack would update.
	Behind []int
	// Settled are the pull requests behind their base whose conflict
	// with it CogWorks escalated to a maintainer (Resolver): nothing is
	// due for them until the base moves on, or, once their resolutions
	// ran out, at all.
	Settled []int
}

// Pending reports whether a Restack of the pass has anything to do.
func (d Due) Pending() bool { return len(d.Stale)+len(d.Behind) > 0 }

// Check lists, with reads only, what a Restack of the pass (the bot's
// pull requests, of Item when set) would retarget or update: one list of
// the open pull requests; per pull request one list of the closed ones
// of its base; per live base its head (once) and one compare with the
// pull request's head; and per pull request behind its base its
// comments, for an escalated conflict (Due.Settled), which would only
// take the lock to find the conflict again.
func (s Restacker) Check(ctx context.Context, repo github.Repo) (Due, error) {
	open, err := s.GitHub.ListPulls(ctx, repo, github.PullFilter{State: "open"})
	if err != nil {
		return Due{}, fmt.Errorf("restack %s: %w", repo, err)
	}
	slices.SortFunc(open, func(a, b github.PullRequest) int { return a.Number - b.Number })
	var due Due
	heads := map[string]string{}
	for _, p := range open {
		if !s.ours(p) {
			continue
		}
		base, err := s.liveBase(ctx, repo, p.Base)
		if err != nil {
			return Due{}, err
		}
		if base != p.Base {
			due.Stale = append(due.Stale, p.Number)
			continue
		}
		if _, ok := heads[base]; !ok {
			h, err := s.GitHub.GetBranchHead(ctx, repo, base)
			if err != nil {
				return Due{}, fmt.Errorf("restack %s: read head of %s: %w", repo, base, err)
			}
			heads[base] = h.SHA
		}
		cmp, err := s.GitHub.Compare(ctx, repo, heads[base], p.HeadSHA)
		if err != nil {
			return Due{}, fmt.Errorf("restack %s: compare #%d with %s: %w", repo, p.Number, base, err)
		}
		if cmp.BehindBy == 0 {
			continue
		}
		past, err := history(ctx, s.GitHub, repo, p.Number, heads[base], s.Bot)
		if err != nil {
			return Due{}, fmt.Errorf("restack %s: %w", repo, err)
		}
		if past.settled(config.Revision{MaxCycles: s.MaxCycles}.Cycles()) {
			due.Settled = append(due.Settled, p.Number)
			continue
		}
		due.Behind = append(due.Behind, p.Number)
	}
	return due, nil
}

// Items lists the work items that have an open pull request of the
// bot's (heads cogworks/<N>/…), in order, with one list of the open pull
// requests: the items a move of the default branch may leave behind.
func (s Restacker) Items(ctx context.Context, repo github.Repo) ([]int, error) {
	open, err := s.GitHub.ListPulls(ctx, repo, github.PullFilter{State: "open"})
	if err != nil {
		return nil, fmt.Errorf("list the open pull requests of %s: %w", repo, err)
	}
	var items []int
	for _, p := range open {
		if n, ok := pipeline.WorkItemOfBranch(p.Head); ok && revision.Own(p, s.Bot) {
			items = append(items, n)
		}
	}
	slices.Sort(items)
	return slices.Compact(items), nil
}

// ours reports whether p is in the pass: the bot's, of Item when set.
func (s Restacker) ours(p github.PullRequest) bool {
	n, _ := pipeline.WorkItemOfBranch(p.Head)
	return revision.Own(p, s.Bot) && (s.Item <= 0 || n == s.Item)
}
