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

// Comparison is what separates head from base: their merge base, and
// the commits and files head has since it (GitHub's three-dot compare).
type Comparison struct {
	MergeBase string
	// Files are the changed files; a renamed file also names its old path.
	Files []ChangedFile
	// Commits are head's commits since the merge base, oldest first (SHA,
	// message and parents); past 200 the middle ones are left out.
	Commits []Commit
	// TotalCommits is how many commits head has since the merge base.
	TotalCommits int
	// BehindBy is how many commits base has that head lacks: a pull
	// request whose head is behind its base needs the base merged in.
	BehindBy int
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
// rather than read short (ErrCompareTooLarge).
func (c *Client) Compare(ctx context.Context, repo Repo, base, head string) (Comparison, error) {
	const perPage = 100
	what := fmt.Sprintf("compare %s...%s in %s", base, head, repo)
	cmp, _, err := c.gh.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &gh.ListOptions{PerPage: perPage})
	if err != nil {
		return Comparison{}, convertError(what, err)
	}
	if len(cmp.Files) >= 300 {
		return Comparison{}, fmt.Errorf("%s: %d files or more: %w", what, len(cmp.Files), ErrCompareTooLarge)
	}
	out := Comparison{MergeBase: cmp.GetMergeBaseCommit().GetSHA(), TotalCommits: cmp.GetTotalCommits(), BehindBy: cmp.GetBehindBy()}
	for _, f := range cmp.Files {
		out.Files = append(out.Files, ChangedFile{Path: f.GetFilename(), PreviousPath: f.GetPreviousFilename(), Status: f.GetStatus()})
	}
	commits := cmp.Commits
	if last := (out.TotalCommits + perPage - 1) / perPage; last > 1 {
		// The newest commits are on the last page.
		more, _, err := c.gh.Repositories.CompareCommits(ctx, repo.Owner, repo.Name, base, head, &gh.ListOptions{PerPage: perPage, Page: last})
		if err != nil {
			return Comparison{}, convertError(what, err)
		}
		commits = append(commits, more.Commits...)
	}
	for _, rc := range commits {
		cm := Commit{SHA: rc.GetSHA(), Message: rc.GetCommit().GetMessage(), TreeSHA: rc.GetCommit().GetTree().GetSHA()}
		for _, p := range rc.Parents {
			cm.Parents = append(cm.Parents, p.GetSHA())
		}
		out.Commits = append(out.Commits, cm)
	}
	return out, nil
}
