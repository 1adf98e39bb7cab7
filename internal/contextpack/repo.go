package contextpack

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Repository is the Code Repository port context assembly reads from: the
// local workspace (LocalRepo) or the GitHub contents/trees API. Paths are
// slash-separated and relative to the repository root.
type Repository interface {
	ListFiles(ctx context.Context) ([]string, error)
	ReadFile(ctx context.Context, path string) ([]byte, error)
}

// LocalRepo reads a working copy on disk. It skips .git directories and
// refuses paths that leave Dir (including through symlinks).
type LocalRepo struct {
	Dir string
}

// ListFiles returns every regular file under Dir, sorted, without .git.
func (r LocalRepo) ListFiles(ctx context.Context) ([]string, error) {
	var files []string
	err := filepath.WalkDir(r.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(r.Dir, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list files in %s: %w", r.Dir, err)
	}
	sort.Strings(files)
	return files, nil
}

// ReadFile reads one repository file.
func (r LocalRepo) ReadFile(ctx context.Context, path string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "" || strings.HasPrefix(path, "/") || filepath.IsAbs(path) {
		return nil, fmt.Errorf("read %q from %s: path must be relative to the repository root", path, r.Dir)
	}
	root, err := os.OpenRoot(r.Dir)
	if err != nil {
		return nil, fmt.Errorf("open repository %s: %w", r.Dir, err)
	}
	defer root.Close()
	b, err := root.ReadFile(filepath.FromSlash(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read %s from %s: %w", path, r.Dir, fs.ErrNotExist)
		}
		return nil, fmt.Errorf("read %s from %s: %w", path, r.Dir, err)
	}
	return b, nil
}
