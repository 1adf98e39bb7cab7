package revision

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/github"
)

// PullLister lists pull requests.
type PullLister interface {
	ListPulls(ctx context.Context, repo github.Repo, f github.PullFilter) ([]github.PullRequest, error)
}

// Sweep is the cron's CI feedback: one Cycle for each open pull request
// the bot opened on a cogworks/ branch, whatever event was missed. Each
// cycle is idempotent, so a sweep after the events changes nothing more.
// A cycle's error stops the sweep (the next one resumes).
func (r CIReviser) Sweep(ctx context.Context, lister PullLister, repo github.Repo) (map[int]Outcome, error) {
	prs, err := lister.ListPulls(ctx, repo, github.PullFilter{State: "open"})
	if err != nil {
		return nil, fmt.Errorf("sweep CI of %s: %w", repo, err)
	}
	out := map[int]Outcome{}
	for _, p := range prs {
		if !strings.EqualFold(p.User, r.Bot) || !cogworksHead.MatchString(p.Head) {
			continue
		}
		o, err := r.Cycle(ctx, repo, p.Number, "")
		if err != nil {
			return out, err
		}
		out[p.Number] = o
	}
	return out, nil
}
