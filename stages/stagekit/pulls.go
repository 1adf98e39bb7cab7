package stagekit

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/idem"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
)

// WriteWarnings appends the availability warnings section of a PR body to b.
func WriteWarnings(b *strings.Builder, warnings []string) {
	if len(warnings) == 0 {
		return
	}
	b.WriteString("\n**Warnings:**\n\n")
	for _, w := range warnings {
		b.WriteString("- " + OneLine(w) + "\n")
	}
}

// findPullByHead returns the bot's PR whose head is branch (open first,
// else any state), as idem.FindOrCreatePull finds it, without creating
// one. A PR anyone else opened on the branch is never returned: its title
// and body are not the bot's (idem.Owned). The caller checks the base.
func findPullByHead(ctx context.Context, api PullLister, repo github.Repo, author, branch string) (github.PullRequest, bool, error) {
	if author == "" {
		return github.PullRequest{}, false, fmt.Errorf("find the PR of %s in %s: %w", branch, repo, idem.ErrNoIdentity)
	}
	pulls, err := api.ListPulls(ctx, repo, github.PullFilter{State: "all", Head: branch})
	if err != nil {
		return github.PullRequest{}, false, fmt.Errorf("find the PR of %s in %s: %w", branch, repo, err)
	}
	var other *github.PullRequest
	for i, pr := range pulls {
		if pr.Head != branch || !idem.Owned(pr, author, "") {
			continue
		}
		if pr.State == "open" {
			return pr, true, nil
		}
		if other == nil {
			other = &pulls[i]
		}
	}
	if other != nil {
		return *other, true, nil
	}
	return github.PullRequest{}, false, nil
}

// RecordedOrNone reports whether a found PR may be the one the snapshot
// recorded when it was opened: any PR when none was recorded yet.
func RecordedOrNone(recorded, found int) bool {
	return recorded == 0 || recorded == found
}

// OwnPull finds the bot's PR from branch to base before any LLM call, so
// that an outsider's PR blocking the branch fails the stage
// (*idem.ForeignPullError) before anything is spent.
func OwnPull(ctx context.Context, gh idem.PullAPI, in engine.StageInput, branch, base string) (github.PullRequest, bool, error) {
	pr, found, foreign, err := idem.FindOwnPull(ctx, gh, in.Repo, in.BotLogin, idem.Branches{Head: branch, Base: base})
	if err != nil || found {
		return pr, found, err
	}
	if foreign != nil {
		return github.PullRequest{}, false, &idem.ForeignPullError{Head: branch, Number: foreign.Number, User: foreign.User, Base: foreign.Base}
	}
	return github.PullRequest{}, false, nil
}
