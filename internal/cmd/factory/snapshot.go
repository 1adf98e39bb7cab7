package factory

import (
	"context"
	"fmt"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/pipeline"
)

// ReadSnapshot reads a work item's state snapshot from its status comment.
func ReadSnapshot(ctx context.Context, f *Factory, repo github.Repo, issue int) (pipeline.Snapshot, error) {
	gh, err := f.Client(ctx)
	if err != nil {
		return pipeline.Snapshot{}, err
	}
	bot, err := f.OwnLogin(ctx, gh)
	if err != nil {
		return pipeline.Snapshot{}, err
	}
	comments, err := gh.ListComments(ctx, repo, issue)
	if err != nil {
		return pipeline.Snapshot{}, fmt.Errorf("read comments of %s#%d: %w", repo, issue, err)
	}
	key, _ := f.SigningKey()
	scope := statesig.Scope{Kind: statesig.KindState, Repo: repo.String(), Issue: issue}
	for _, c := range comments {
		// Only the bot's own status comment is state (docs/security.md),
		// and with a key only one whose MAC verifies (package statesig).
		if k, ok := audit.FindKey(c.Body); ok && c.User == bot && k == audit.Key(fmt.Sprint(issue), "status") {
			// The MAC is checked before a parse error counts: a forged block
			// that does not parse is skipped like any other forgery.
			snap, found, err := pipeline.ParseSnapshot(c.Body)
			if block, ok := pipeline.SnapshotBlock(c.Body); ok && !statesig.Accept(key, key.VerifyState(scope, c.ID, snap.Seq, c.Body, block), statesig.IsShared(bot)) {
				continue
			}
			if err != nil {
				return pipeline.Snapshot{}, fmt.Errorf("state snapshot of %s#%d: %w", repo, issue, err)
			}
			if found {
				return snap, nil
			}
		}
	}
	return pipeline.Snapshot{}, fmt.Errorf("%s#%d has no CogWorks status comment yet", repo, issue)
}
