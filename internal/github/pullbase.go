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

// Comparison is what separates head from base: their merge base and the
// files head changed since it (GitHub's three-dot compare).
type Comparison struct {
	MergeBase string
	// Files are the changed files; a renamed file also names its old path.
	Files []ChangedFile
}

// ChangedFile is one file of a comparison.
type ChangedFile struct {
	Path, PreviousPath string
	// Status is added | removed | modified | renamed | copied | changed.
	Status string
}

// Compare returns what head changed since its merge base with base, both
// commit SHAs (a branch name with a "/" is no single path segment).
// GitHub lists at most 300 files; a comparison past that is refused here
// rather than read short.
func (c *Client) Compare(ctx context.Context, repo Repo, base, head string) (Comparison, error) {
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &gh.ListOptions{PerPage: 1})
	if err != nil {
		return Comparison{}, convertError(fmt.Sprintf("compare %s...%s in %s", base, head, repo), err)
	}
	if len(cmp.Files) >= 300 {
		return Comparison{}, fmt.Errorf("compare %s...%s in %s: %d files or more, past what GitHub lists", base, head, repo, len(cmp.Files))
	}
	out := Comparison{MergeBase: cmp.GetMergeBaseCommit().GetSHA()}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, ChangedFile{Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus()})
	}
	return out, nil
}
