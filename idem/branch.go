package idem

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cogworks/cogworks/github"
)

// GitAPI is what WriteFiles needs from GitHub.
type GitAPI interface {
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
	CreateBranch(ctx context.Context, repo github.Repo, branch, sha string) error
	UpdateBranch(ctx context.Context, repo github.Repo, branch, sha string, force bool) error
	GetCommit(ctx context.Context, repo github.Repo, sha string) (github.Commit, error)
	CreateTree(ctx context.Context, repo github.Repo, baseTree string, entries []github.TreeEntry) (string, error)
	CreateCommit(ctx context.Context, repo github.Repo, message, tree string, parents []string) (github.Commit, error)
}

// Commit describes files to commit on a branch.
type Commit struct {
	Branch string
	// From is the branch the new branch starts from when it does not exist.
	From    string
	Message string
	Files   map[string]string
}

// WriteFiles commits c.Files on c.Branch, creating the branch from c.From
// when needed. If the resulting tree equals the branch's current tree it
// writes no commit and reports changed=false. It returns the branch head.
func WriteFiles(ctx context.Context, api GitAPI, repo github.Repo, c Commit) (head string, changed bool, err error) {
	head, err = ensureBranch(ctx, api, repo, c.Branch, c.From)
	if err != nil {
		return "", false, err
	}
	parent, err := api.GetCommit(ctx, repo, head)
	if err != nil {
		return "", false, fmt.Errorf("read head commit %s of %s in %s: %w", head, c.Branch, repo, err)
	}
	paths := make([]string, 0, len(c.Files))
	for p := range c.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	entries := make([]github.TreeEntry, 0, len(paths))
	for _, p := range paths {
		content := c.Files[p]
		entries = append(entries, github.TreeEntry{Path: p, Mode: "100644", Type: "blob", Content: &content})
	}
	tree, err := api.CreateTree(ctx, repo, parent.TreeSHA, entries)
	if err != nil {
		return "", false, fmt.Errorf("write tree for %s in %s: %w", c.Branch, repo, err)
	}
	if tree == parent.TreeSHA {
		return head, false, nil
	}
	commit, err := api.CreateCommit(ctx, repo, c.Message, tree, []string{head})
	if err != nil {
		return "", false, fmt.Errorf("commit on %s in %s: %w", c.Branch, repo, err)
	}
	if err := api.UpdateBranch(ctx, repo, c.Branch, commit.SHA, false); err != nil {
		return "", false, fmt.Errorf("move %s to %s in %s: %w", c.Branch, commit.SHA, repo, err)
	}
	return commit.SHA, true, nil
}

func ensureBranch(ctx context.Context, api GitAPI, repo github.Repo, branch, from string) (string, error) {
	sha, err := api.GetBranchSHA(ctx, repo, branch)
	if err == nil {
		return sha, nil
	}
	if !errors.Is(err, github.ErrNotFound) {
		return "", fmt.Errorf("read branch %s in %s: %w", branch, repo, err)
	}
	base, err := api.GetBranchSHA(ctx, repo, from)
	if err != nil {
		return "", fmt.Errorf("read base branch %s for %s in %s: %w", from, branch, repo, err)
	}
	err = api.CreateBranch(ctx, repo, branch, base)
	if errors.Is(err, github.ErrUnprocessable) { // created concurrently
		return api.GetBranchSHA(ctx, repo, branch)
	}
	if err != nil {
		return "", fmt.Errorf("create branch %s from %s in %s: %w", branch, from, repo, err)
	}
	return base, nil
}
