package restack

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/stages/revision"
)

// StepGitHub is what the engine's restack step uses: the pass and the
// resolution of its conflicts.
type StepGitHub interface {
	GitHub
	ResolveGitHub
}

// Step is the restack the engine runs for a work item under its lock
// (engine.Restacker): one Restacker pass over that item's PRs only, then
// one Resolver run per PR whose base does not merge cleanly.
type Step struct {
	GitHub StepGitHub
	// Generator is the revision that resolves a conflict, built from the
	// step's input (its snapshot, whose ledger the tokens go to); nil
	// leaves conflicts reported and unresolved.
	Generator func(in engine.StageInput) revision.Generator
}

// Restack implements engine.Restacker.
func (s Step) Restack(ctx context.Context, in engine.StageInput) (engine.RestackOutcome, error) {
	res, err := Restacker{GitHub: s.GitHub, Bot: in.BotLogin, Item: in.Issue.Number}.Restack(ctx, in.Repo)
	if err != nil {
		return engine.RestackOutcome{}, err
	}
	out := engine.RestackOutcome{Retargeted: res.Retargeted, Updated: res.Updated}
	if s.Generator == nil {
		out.Conflicts = res.Conflicts
		return out, nil
	}
	r := Resolver{GitHub: s.GitHub, Generator: s.Generator(in), Bot: in.BotLogin, MaxCycles: in.Config.Revision.MaxCycles}
	for _, pr := range res.Conflicts {
		o, err := r.Resolve(ctx, in.Repo, pr)
		if err != nil {
			return engine.RestackOutcome{}, err
		}
		switch o.Action {
		case revision.Revised:
			out.Resolved = append(out.Resolved, engine.Resolution{PR: pr, Cycle: o.Cycle, Commit: o.Commit, Reason: o.Reason})
		case revision.Escalated:
			out.Escalated = append(out.Escalated, engine.Resolution{PR: pr, Cycle: o.Cycle, Reason: o.Reason})
		default:
			// The branch moved under the resolution: the next pass sees it.
			out.Conflicts = append(out.Conflicts, pr)
		}
	}
	return out, nil
}

// Pending implements engine.Restacker: whether a PR of the item sits on
// a merged PR's branch or lacks commits of its base, with reads only.
func (s Step) Pending(ctx context.Context, in engine.StageInput) (bool, string, error) {
	due, err := Restacker{GitHub: s.GitHub, Bot: in.BotLogin, Item: in.Issue.Number, MaxCycles: in.Config.Revision.MaxCycles}.Check(ctx, in.Repo)
	if err != nil {
		return false, "", err
	}
	if !due.Pending() {
		if len(due.Settled) > 0 {
			return false, fmt.Sprintf("the conflicts of work item #%d's pull requests %v with their base are a maintainer's", in.Issue.Number, due.Settled), nil
		}
		return false, fmt.Sprintf("every pull request of work item #%d is up to date with its base", in.Issue.Number), nil
	}
	var parts []string
	if len(due.Stale) > 0 {
		parts = append(parts, fmt.Sprintf("%d on a merged branch", len(due.Stale)))
	}
	if len(due.Behind) > 0 {
		parts = append(parts, fmt.Sprintf("%d behind its base", len(due.Behind)))
	}
	return true, "pull requests " + strings.Join(parts, ", "), nil
}

// Items implements engine.Restacker: the work items with an open PR of
// the bot's in in.Repo.
func (s Step) Items(ctx context.Context, in engine.StageInput) ([]int, error) {
	return Restacker{GitHub: s.GitHub, Bot: in.BotLogin}.Items(ctx, in.Repo)
}
