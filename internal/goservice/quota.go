package goservice

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"time"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// Disk quotas of what generated code writes on the host. The sandbox's
// /tmp is a size-limited tmpfs (sandbox.Limits.TmpBytes); the workspace and
// the repository's build cache layer are host directories, bounded here.
const (
	// DefaultWorkspaceBytes bounds a request's workspace after each go
	// command: beyond it the request fails (and its workspace is removed,
	// as every request's is).
	DefaultWorkspaceBytes int64 = 1 << 30
	// DefaultCacheBytes bounds a repository's build cache layer after
	// each go command: beyond it the oldest entries are evicted.
	DefaultCacheBytes int64 = 2 << 30
)

// minEntryBytes is what every file, directory or link counts at least,
// so that a flood of empty files (inodes) is bounded like data.
const minEntryBytes = 4096

// diskUsage walks dir without following links and returns the space its
// entries take: allocated blocks (a sparse file counts what it holds, not
// its length), each entry at least minEntryBytes.
func diskUsage(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		total += entryBytes(p)
		return nil
	})
	return total, err
}

// entryBytes is the space one entry takes (lstat: a link is not followed).
func entryBytes(p string) int64 {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return minEntryBytes
	}
	return max(st.Blocks*512, minEntryBytes)
}

// quotaError is a request that failed because generated code wrote more
// than its quota.
func quotaError(what string, used, quota int64) error {
	return extserver.Errorf(domain.CodeToolFailed, "%s quota exceeded: generated code wrote %d MiB into it, the quota is %d MiB", what, used>>20, quota>>20)
}

// baselineWorkspace measures the workspace once, before its first go
// command runs.
func (r *runner) baselineWorkspace(ws *workspace) error {
	if ws.baseKnown {
		return nil
	}
	used, err := diskUsage(ws.dir)
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "measure workspace %s: %v", ws.dir, err)
	}
	ws.baseBytes, ws.baseKnown = used, true
	return nil
}

// checkWorkspace fails the request when generated code added more than
// the quota to its workspace. It runs after every go command, sandboxed
// or not.
func (r *runner) checkWorkspace(ws *workspace) error {
	quota := r.workspaceBytes
	if quota <= 0 {
		quota = DefaultWorkspaceBytes
	}
	used, err := diskUsage(ws.dir)
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "measure workspace %s: %v", ws.dir, err)
	}
	if added := used - ws.baseBytes; added > quota {
		return quotaError("workspace", added, quota)
	}
	return nil
}

// goCacheDir and goCacheFile match what the go command writes into a
// build cache: <2 hex>/<64 hex>-a|-d files, <2 hex>/<64 hex>-d/<name>
// executables (go run, go tool), and the top-level README, trim.txt and
// testexpire.txt. Anything else in a cache layer was written by generated
// code, not by the go command.
var (
	goCacheDir  = regexp.MustCompile(`^[0-9a-f]{2}(/[0-9a-f]{64}-d)?$`)
	goCacheFile = regexp.MustCompile(`^(README|trim\.txt|testexpire\.txt|[0-9a-f]{2}/[0-9a-f]{64}-[ad](/[^/]+)?)$`)
)

// isGoCacheEntry reports whether rel (slash-separated, relative to a
// cache layer) is something the go command writes, of the right type.
func isGoCacheEntry(rel string, d fs.DirEntry) bool {
	if d.IsDir() {
		return goCacheDir.MatchString(rel)
	}
	return d.Type().IsRegular() && goCacheFile.MatchString(rel)
}

// cacheFile is a go cache entry of a layer, by age.
type cacheFile struct {
	path  string
	size  int64
	mtime time.Time
}

// trimCache keeps a repository's build cache layer (the overlay's upper
// directory, persistent between its requests) within quota: it removes
// what is not a go cache entry (files generated code wrote there, links,
// devices, FIFOs) and, when the rest is over the quota, the least
// recently used entries (the go command refreshes an entry's mtime when
// it uses it) until it is at three quarters of the quota, so that a
// layer near its bound is not trimmed on every request. A removed entry
// is a cache miss, never an error. It returns the bytes kept.
func trimCache(upper string, quota int64) (int64, error) {
	var files []cacheFile
	var total int64
	err := filepath.WalkDir(upper, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			// A directory generated code made unreadable goes whole.
			if p != upper && removeTree(p) == nil {
				return fs.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(upper, p)
		if rel == "." {
			return nil
		}
		if !isGoCacheEntry(filepath.ToSlash(rel), d) {
			if err := removeTree(p); err != nil {
				return err
			}
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		size := entryBytes(p)
		total += size
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return nil // removed meanwhile
			}
			files = append(files, cacheFile{path: p, size: size, mtime: info.ModTime()})
		}
		return nil
	})
	if err != nil {
		return total, fmt.Errorf("trim build cache %s: %w", upper, err)
	}
	if total <= quota {
		return total, nil
	}
	slices.SortFunc(files, func(a, b cacheFile) int { return a.mtime.Compare(b.mtime) })
	for _, f := range files {
		if total <= quota/4*3 {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return total, fmt.Errorf("trim build cache: %w", err)
		}
		total -= f.size
	}
	return total, nil
}

// removeTree removes p, also when generated code took the permissions off
// its directories (a directory without write or search permission cannot
// be emptied by a non-root owner).
func removeTree(p string) error {
	if err := os.RemoveAll(p); err == nil {
		return nil
	}
	_ = filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(q, 0o700)
		}
		return nil
	})
	return os.RemoveAll(p)
}

// trimCacheLayer applies the cache quota to a repository's layer after a
// go command; a failure is logged (the next command retries), never the
// request's.
func (r *runner) trimCacheLayer(upper string) {
	quota := r.cacheBytes
	if quota <= 0 {
		quota = DefaultCacheBytes
	}
	if _, err := trimCache(upper, quota); err != nil {
		r.logger.Warn("build cache quota", "layer", upper, "error", err)
	}
}
