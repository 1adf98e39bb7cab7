package stagekit

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/github"
)

// RepoReader is what GitHubRepo needs from GitHub (a subset of
// *github.Client).
type RepoReader interface {
	GetBranchHead(ctx context.Context, repo github.Repo, branch string) (github.Commit, error)
	GetTree(ctx context.Context, repo github.Repo, treeSHA string, recursive bool) ([]github.TreeEntry, error)
	GetFile(ctx context.Context, repo github.Repo, path, ref string) ([]byte, error)
}

// GitHubRepo is a contextpack.Repository reading branch Ref of Repo
// through the GitHub trees and contents APIs, for runs without a local
// checkout.
type GitHubRepo struct {
	GitHub RepoReader
	Repo   github.Repo
	// Ref is the branch to read.
	Ref string
}

// ListFiles returns every blob path of the branch's tree, sorted.
func (r GitHubRepo) ListFiles(ctx context.Context) ([]string, error) {
	if r.GitHub == nil || r.Ref == "" {
		return nil, fmt.Errorf("list files of %s: GitHubRepo needs a GitHub client and a ref", r.Repo)
	}
	commit, err := r.GitHub.GetBranchHead(ctx, r.Repo, r.Ref)
	if err != nil {
		return nil, fmt.Errorf("list files of %s@%s: %w", r.Repo, r.Ref, err)
	}
	entries, err := r.GitHub.GetTree(ctx, r.Repo, commit.TreeSHA, true)
	if err != nil {
		return nil, fmt.Errorf("list files of %s@%s: read tree %s: %w", r.Repo, r.Ref, commit.TreeSHA, err)
	}
	var files []string
	for _, e := range entries {
		if e.Type == "blob" {
			files = append(files, e.Path)
		}
	}
	sort.Strings(files)
	return files, nil
}

// ReadFile reads one file of the branch; a missing file wraps
// github.ErrNotFound.
func (r GitHubRepo) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if r.GitHub == nil || r.Ref == "" {
		return nil, fmt.Errorf("read %s from %s: GitHubRepo needs a GitHub client and a ref", path, r.Repo)
	}
	if path == "" || strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("read %q from %s: path must be relative to the repository root", path, r.Repo)
	}
	b, err := r.GitHub.GetFile(ctx, r.Repo, path, r.Ref)
	if err != nil {
		return nil, fmt.Errorf("read %s from %s@%s: %w", path, r.Repo, r.Ref, err)
	}
	return b, nil
}

var _ contextpack.Repository = GitHubRepo{}
