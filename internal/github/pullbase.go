package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
)

// RetargetPull changes pull request number's base branch, as a stack
// needs when the PR it was based on is merged: the head branch and its
// commits are untouched.
func (c *Client) RetargetPull(ctx context.Context, repo Repo, number int, base string) error {
	if err := c.manifest.Check(OpWritePull); err != nil {
		return err
	}
	if _, _, err := c.gh.PullRequests.Edit(ctx, repo.Owner, repo.Name, number, &gh.PullRequest{Base: &gh.PullRequestBranch{Ref: &base}}); err != nil {
		return convertError(fmt.Sprintf("retarget %s#%d onto %s", repo, number, base), err)
	}
	return nil
}
