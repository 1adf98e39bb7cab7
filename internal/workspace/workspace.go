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
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/github"
)

// GitHub is what the cache reads.
type GitHub interface {
	GetRepo(ctx context.Context, repo github.Repo) (github.RepoInfo, error)
	GetBranchSHA(ctx context.Context, repo github.Repo, branch string) (string, error)
	GetFile(ctx context.Context, repo github.Repo, filePath, ref string) ([]byte, error)
	Tarball(ctx context.Context, repo github.Repo, ref string) (io.ReadCloser, error)
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
	// MaxBytes bounds the files one tree may hold once extracted (default
	// 2 GiB), so a hostile or runaway archive cannot fill the disk.
	MaxBytes int64

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

// fetch writes every regular file of the commit under dir, from its
// tarball. Symlinks, submodules and other entry types are skipped: a
// symlink could point outside the workspace, and nothing the stages read
// is one.
func (c *Cache) fetch(ctx context.Context, gh GitHub, repo github.Repo, sha, dir string) error {
	rc, err := gh.Tarball(ctx, repo, sha)
	if err != nil {
		return fmt.Errorf("workspace %s@%s: %w", repo, sha, err)
	}
	defer rc.Close()
	limit := c.MaxBytes
	if limit <= 0 {
		limit = 2 << 30
	}
	if err := extract(rc, dir, limit); err != nil {
		return fmt.Errorf("workspace %s@%s: %w", repo, sha, err)
	}
	return nil
}

// extract writes the regular files of a GitHub tarball (a gzipped tar
// whose entries sit under one top-level directory) under dir.
func extract(r io.Reader, dir string, limit int64) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("read tarball: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || rel == "" {
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return fmt.Errorf("unsafe path %q in tarball", h.Name)
		}
		if total += h.Size; total > limit {
			return fmt.Errorf("tarball holds more than %d bytes", limit)
		}
		if err := writeEntry(filepath.Join(dir, filepath.FromSlash(rel)), tr, h); err != nil {
			return err
		}
	}
}

func writeEntry(target string, r io.Reader, h *tar.Header) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if h.Mode&0o111 != 0 {
		perm = 0o755
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, h.Size); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", h.Name, err)
	}
	return f.Close()
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
