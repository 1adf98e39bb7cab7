package restack

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/internal/engine"
)

// Step is the restack the engine runs for a work item under its lock
// (engine.Restacker): one Restacker pass over that item's PRs only.
type Step struct {
	GitHub GitHub
}

// Restack implements engine.Restacker.
func (s Step) Restack(ctx context.Context, in engine.StageInput) (engine.RestackOutcome, error) {
	res, err := Restacker{GitHub: s.GitHub, Bot: in.BotLogin, Item: in.Issue.Number}.Restack(ctx, in.Repo)
	if err != nil {
		return engine.RestackOutcome{}, err
	}
	return engine.RestackOutcome{Retargeted: res.Retargeted, Updated: res.Updated, Conflicts: res.Conflicts}, nil
}

// Pending implements engine.Restacker: whether a PR of the item sits on
// a merged PR's branch, with reads only.
func (s Step) Pending(ctx context.Context, in engine.StageInput) (bool, string, error) {
	stale, err := Restacker{GitHub: s.GitHub, Bot: in.BotLogin, Item: in.Issue.Number}.Stale(ctx, in.Repo)
	if err != nil {
		return false, "", err
	}
	if len(stale) == 0 {
		return false, fmt.Sprintf("no pull request of work item #%d sits on a merged branch", in.Issue.Number), nil
	}
	return true, "", nil
}
