package revision

import (
	"context"

	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/pipeline"
)

// Step is the revision the engine runs on a work item's PR
// (engine.PRReviser): Reviser's cycle with the code-generation attempt
// and the review passes as its Generator, the trust rules and the cap
// from the work item's configuration.
type Step struct {
	GitHub GitHub
	Code   Coder
	Review Reviewer
	// Spec and Design revise the specification and interface PRs
	// (architecture's and interface design's executors); nil leaves
	// them unrevised, with a reply saying so.
	Spec, Design Designer
}

func (s Step) reviser(in engine.StageInput, gen Generator) Reviser {
	return Reviser{GitHub: s.GitHub, Generator: gen, MaxCycles: in.Config.Revision.MaxCycles,
		Trust: Trust{Bot: in.BotLogin, TrustedBots: in.Config.Revision.TrustedBots}}
}

// Pending implements engine.PRReviser.
func (s Step) Pending(ctx context.Context, in engine.StageInput, pr int) (bool, string, error) {
	return s.reviser(in, nil).Pending(ctx, in.Repo, pr)
}

// Revise implements engine.PRReviser.
func (s Step) Revise(ctx context.Context, in engine.StageInput, pr int) (engine.RevisionOutcome, error) {
	var decided []pipeline.Change
	gen := Attempt{Code: s.Code, Review: s.Review, Issues: s.GitHub, In: in, Decided: &decided, Spec: s.Spec, Design: s.Design}
	out, err := s.reviser(in, gen).Cycle(ctx, in.Repo, pr)
	if err != nil {
		return engine.RevisionOutcome{}, err
	}
	if out.Action == Revised {
		ch, err := interfaceChanges(ctx, s.GitHub, in, pr)
		if err != nil {
			return engine.RevisionOutcome{}, err
		}
		decided = append(decided, ch...)
	}
	return engine.RevisionOutcome{Action: pipeline.RevisionAction(out.Action), Cycle: out.Cycle, Commit: out.Commit,
		Threads: len(out.Threads), Reason: out.Reason, Changes: decided}, nil
}
