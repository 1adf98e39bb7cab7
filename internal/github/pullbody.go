package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// EditPullBody replaces pull request number's body, as a revision of the
// interface PR does so that its interface list (which the stage recovers
// from) stays the one on the branch. Setting the same body again is a
// no-op in effect, so a re-run may repeat it.
func (c *Client) EditPullBody(ctx context.Context, repo Repo, number int, body string) error {
	if err := c.manifest.Check(OpWritePull); err != nil {
		return err
	}
	if _, _, err := c.gh.PullRequests.Edit(ctx, repo.Owner, repo.Name, number, &gh.PullRequest{Body: &body}); err != nil {
		return convertError(fmt.Sprintf("edit the body of %s#%d", repo, number), err)
	}
	return nil
}
