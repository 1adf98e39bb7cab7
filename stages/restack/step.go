package restack

import (
	"context"

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
