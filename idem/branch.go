package idem

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/cogworks/cogworks/internal/github"
)

// GitAPI is what WriteFiles needs from GitHub.
type GitAPI interface {
	GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error)
	CreateBranch(ctx context.Context, repo github.Repo, branch, sha string) error
	UpdateBranch(ctx context.Context, repo github.Repo, branch, sha string, force bool) error
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
	// Delete lists paths removed in the commit (a deleted or renamed file).
	Delete []string
}

// WriteFiles commits c.Files on c.Branch, creating the branch from c.From
// when needed. If the resulting tree equals the branch's current tree it
// writes no commit and reports changed=false. It returns the branch head.
//
// It costs at most 4 GitHub requests on an existing branch (head with its
// tree, tree with the contents inline, commit, ref update; 2 when nothing
// changed) and 5 on a new one (one more head read; the branch is created at
// the new commit rather than created and then moved).
func WriteFiles(ctx context.Context, api GitAPI, repo github.Repo, c Commit) (head string, changed bool, err error) {
	head, changed, err = writeFiles(ctx, api, repo, c)
	if errors.Is(err, errBranchRace) {
		// Another run created the branch between our read and our create:
		// our commit is an unreferenced object; start again on its branch,
		// where an equal tree now means nothing to write.
		head, changed, err = writeFiles(ctx, api, repo, c)
	}
	if errors.Is(err, errBranchRace) {
		return "", false, fmt.Errorf("create branch %s in %s: %w", c.Branch, repo, err)
	}
	return head, changed, err
}

// errBranchRace reports that the branch appeared while we wrote to it.
var errBranchRace = errors.New("branch created concurrently")

func writeFiles(ctx context.Context, api GitAPI, repo github.Repo, c Commit) (string, bool, error) {
	parent, exists, err := branchHead(ctx, api, repo, c.Branch, c.From)
	if err != nil {
		return "", false, err
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
	for _, p := range c.Delete {
		if _, written := c.Files[p]; !written {
			entries = append(entries, github.TreeEntry{Path: p, Mode: "100644", Type: "blob", Delete: true})
		}
	}
	tree, err := api.CreateTree(ctx, repo, parent.TreeSHA, entries)
	if err != nil {
		return "", false, fmt.Errorf("write tree for %s in %s: %w", c.Branch, repo, err)
	}
	head, changed := parent.SHA, tree != parent.TreeSHA
	if changed {
		commit, err := api.CreateCommit(ctx, repo, c.Message, tree, []string{parent.SHA})
		if err != nil {
			return "", false, fmt.Errorf("commit on %s in %s: %w", c.Branch, repo, err)
		}
		head = commit.SHA
	}
	switch {
	case !exists:
		err := api.CreateBranch(ctx, repo, c.Branch, head)
		if errors.Is(err, github.ErrUnprocessable) {
			return "", false, errBranchRace
		}
		if err != nil {
			return "", false, fmt.Errorf("create branch %s from %s in %s: %w", c.Branch, c.From, repo, err)
		}
	case changed:
		if err := api.UpdateBranch(ctx, repo, c.Branch, head, false); err != nil {
			return "", false, fmt.Errorf("move %s to %s in %s: %w", c.Branch, head, repo, err)
		}
	}
	return head, changed, nil
}

// branchHead returns the head of branch, or of from when branch does not
// exist yet (exists=false).
func branchHead(ctx context.Context, api GitAPI, repo github.Repo, branch, from string) (github.Commit, bool, error) {
	head, err := api.GetBranchHead(ctx, repo, branch)
	if err == nil {
		return head, true, nil
	}
	if !errors.Is(err, github.ErrNotFound) {
		return github.Commit{}, false, fmt.Errorf("read branch %s in %s: %w", branch, repo, err)
	}
	head, err = api.GetBranchHead(ctx, repo, from)
	if err != nil {
		return github.Commit{}, false, fmt.Errorf("read base branch %s for %s in %s: %w", from, branch, repo, err)
	}
	return head, false, nil
}
