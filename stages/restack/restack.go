package restack

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages/revision"
)

// GitHub is what restacking uses.
type GitHub interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
	RetargetPull(ctx context.Context, repo github.Repo, number int, base string) error
	UpdatePullBranch(ctx context.Context, repo github.Repo, number int, expectedHead string) error
}

// Restacker restacks one repository's CogWorks pull requests.
type Restacker struct {
	GitHub GitHub
	// Bot is CogWorks's login: only its own pull requests are touched.
	Bot string
	// Item, when set, limits the pass to the pull requests of that work
	// item (heads cogworks/<Item>/…), whose lock the caller holds.
	Item int
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
		if !revision.Own(p, s.Bot) {
			continue
		}
		if n, _ := pipeline.WorkItemOfBranch(p.Head); s.Item > 0 && n != s.Item {
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

// Stale lists, with reads only, the pull requests of the pass (the bot's,
// of Item when set) whose base branch is the head of a merged pull
// request: those a Restack would retarget. One list of the open pull
// requests and one of the closed ones per base.
func (s Restacker) Stale(ctx context.Context, repo github.Repo) ([]int, error) {
	open, err := s.GitHub.ListPulls(ctx, repo, github.PullFilter{State: "open"})
	if err != nil {
		return nil, fmt.Errorf("restack %s: %w", repo, err)
	}
	var stale []int
	for _, p := range open {
		if n, _ := pipeline.WorkItemOfBranch(p.Head); !revision.Own(p, s.Bot) || (s.Item > 0 && n != s.Item) {
			continue
		}
		base, err := s.liveBase(ctx, repo, p.Base)
		if err != nil {
			return nil, err
		}
		if base != p.Base {
			stale = append(stale, p.Number)
		}
	}
	slices.Sort(stale)
	return stale, nil
}
