// Package workspace gives a server without a checkout what the stages read
// from a repository: the repository's .cogworks/config.toml, read through
// the contents API, and a directory holding the default branch's files at
// one commit, materialised through the git trees and contents APIs.
//
// Directories are cached per repository and commit under Cache.Root and
// are written to a temporary directory first and renamed into place, so
// concurrent steps either see a complete tree or build their own. A Cache
// is safe for concurrent use; one build per repository and commit runs at
// a time. Stages treat the directory as read-only (they write through the
// GitHub API), so a cached tree is shared by every step at that commit.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
)

// GitHub is what the cache reads.
type GitHub interface {
	GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
	GetCommit(ctx context.Context, repo github.Repo, sha string) (github.Commit, error)
	GetTree(ctx context.Context, repo github.Repo, treeSHA string, recursive bool) ([]github.TreeEntry, error)
	GetFile(ctx context.Context, repo github.Repo, filePath, ref string) ([]byte, error)
}

// Checkout is one repository at one commit.
type Checkout struct {
	Repo   github.Repo
	Branch string
	SHA    string
	// Dir holds the files at SHA.
	Dir string
	// Config is the repository's .cogworks/config.toml at SHA (defaults
	// when absent).
	Config config.Config
}

// Cache materialises and caches checkouts.
type Cache struct {
	// Root is the directory holding <owner>/<name>/<sha> trees.
	Root string
	// Keep is how many commits per repository stay on disk (default 3);
	// older trees are removed after a new one is built.
	Keep int
	// Parallel bounds concurrent file downloads (default 8).
	Parallel int

	mu       sync.Mutex
	building map[string]*sync.Mutex
}

// Head returns the repository's default branch at its current head.
func (c *Cache) Head(ctx context.Context, gh GitHub, repo github.Repo) (Checkout, error) {
	info, err := gh.GetRepo(ctx, repo)
	if err != nil {
		return Checkout{}, fmt.Errorf("workspace %s: %w", repo, err)
	}
	sha, err := gh.GetBranchSHA(ctx, repo, info.DefaultBranch)
	if err != nil {
		return Checkout{}, fmt.Errorf("workspace %s: %w", repo, err)
	}
	return c.At(ctx, gh, repo, info.DefaultBranch, sha)
}

// At returns the checkout of repo at sha (branch is informational).
func (c *Cache) At(ctx context.Context, gh GitHub, repo github.Repo, branch, sha string) (Checkout, error) {
	cfg, err := LoadConfig(ctx, gh, repo, sha)
	if err != nil {
		return Checkout{}, err
	}
	dir, err := c.tree(ctx, gh, repo, sha)
	if err != nil {
		return Checkout{}, err
	}
	return Checkout{Repo: repo, Branch: branch, SHA: sha, Dir: dir, Config: cfg}, nil
}

// LoadConfig reads .cogworks/config.toml at ref through the contents API;
// a missing file yields config.Default().
func LoadConfig(ctx context.Context, gh GitHub, repo github.Repo, ref string) (config.Config, error) {
	data, err := gh.GetFile(ctx, repo, config.Path, ref)
	if errors.Is(err, github.ErrNotFound) {
		return config.Default(), nil
	}
	if err != nil {
		return config.Config{}, fmt.Errorf("read %s of %s: %w", config.Path, repo, err)
	}
	cfg, err := config.Parse(repo.String()+":"+config.Path, data)
	if err != nil {
		return config.Config{}, err
	}
	return cfg, nil
}

func (c *Cache) lockFor(key string) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.building == nil {
		c.building = map[string]*sync.Mutex{}
	}
	m, ok := c.building[key]
	if !ok {
		m = &sync.Mutex{}
		c.building[key] = m
	}
	return m
}

// tree returns the directory of repo at sha, building it when missing.
func (c *Cache) tree(ctx context.Context, gh GitHub, repo github.Repo, sha string) (string, error) {
	if c.Root == "" {
		return "", errors.New("workspace cache: Root is empty")
	}
	repoDir := filepath.Join(c.Root, repo.Owner, repo.Name)
	dir := filepath.Join(repoDir, sha)
	lock := c.lockFor(repo.String())
	lock.Lock()
	defer lock.Unlock()
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(repoDir, 0o755); err != nil {
		return "", fmt.Errorf("workspace %s: %w", repo, err)
	}
	tmp, err := os.MkdirTemp(repoDir, ".build-")
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", repo, err)
	}
	defer os.RemoveAll(tmp) // no-op after the rename
	if err := c.fetch(ctx, gh, repo, sha, tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("workspace %s: %w", repo, err)
	}
	c.prune(repoDir)
	return dir, nil
}

// fetch writes every regular file of the commit's tree under dir.
// Submodules and symlinks are skipped: a symlink could point outside the
// workspace, and nothing the stages read is a submodule.
func (c *Cache) fetch(ctx context.Context, gh GitHub, repo github.Repo, sha, dir string) error {
	commit, err := gh.GetCommit(ctx, repo, sha)
	if err != nil {
		return fmt.Errorf("workspace %s@%s: %w", repo, sha, err)
	}
	entries, err := gh.GetTree(ctx, repo, commit.TreeSHA, true)
	if err != nil {
		return fmt.Errorf("workspace %s@%s: %w", repo, sha, err)
	}
	parallel := c.Parallel
	if parallel <= 0 {
		parallel = 8
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for _, e := range entries {
		if e.Type != "blob" || e.Mode == "120000" {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(e.Path)) {
			return fmt.Errorf("workspace %s@%s: unsafe path %q in tree", repo, sha, e.Path)
		}
		g.Go(func() error {
			data, err := gh.GetFile(gctx, repo, e.Path, sha)
			if err != nil {
				return fmt.Errorf("workspace %s@%s: %w", repo, sha, err)
			}
			target := filepath.Join(dir, filepath.FromSlash(e.Path))
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return fmt.Errorf("workspace %s: %w", repo, err)
			}
			perm := os.FileMode(0o644)
			if e.Mode == "100755" {
				perm = 0o755
			}
			if err := os.WriteFile(target, data, perm); err != nil {
				return fmt.Errorf("workspace %s: %w", repo, err)
			}
			return nil
		})
	}
	return g.Wait()
}

// prune keeps the newest Keep commit trees of one repository.
func (c *Cache) prune(repoDir string) {
	keep := c.Keep
	if keep <= 0 {
		keep = 3
	}
	entries, err := os.ReadDir(repoDir)
	if err != nil {
		return
	}
	type tree struct {
		name string
		mod  int64
	}
	var trees []tree
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		trees = append(trees, tree{e.Name(), info.ModTime().UnixNano()})
	}
	sort.Slice(trees, func(i, j int) bool { return trees[i].mod > trees[j].mod })
	for i := keep; i < len(trees); i++ {
		_ = os.RemoveAll(filepath.Join(repoDir, trees[i].name))
	}
}
