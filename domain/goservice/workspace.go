package goservice

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// workspace is a temporary copy of the repository with the artifacts
// overlaid. Remove must always be called.
type workspace struct {
	dir string
}

// Remove deletes the temporary copy.
func (w *workspace) Remove() { _ = os.RemoveAll(w.dir) }

// prepareWorkspace copies req.Repository.Path (skipping .git) to a new
// temporary directory and writes the artifacts over it.
func prepareWorkspace(req domain.Request) (*workspace, error) {
	for i, a := range req.Artifacts {
		if err := checkArtifactPath(a.Path); err != nil {
			return nil, failf(domain.CodeInvalidRequest, "artifacts[%d]: %v", i, err)
		}
	}
	if req.Repository.Path != "" {
		info, err := os.Stat(req.Repository.Path)
		if err != nil || !info.IsDir() {
			return nil, failf(domain.CodeArtifactNotFound, "repository.path %q is not a readable directory", req.Repository.Path)
		}
	}
	dir, err := os.MkdirTemp("", "cogworks-go-")
	if err != nil {
		return nil, failf(domain.CodeInternalError, "create workspace: %v", err)
	}
	ws := &workspace{dir: dir}
	if req.Repository.Path != "" {
		if err := copyTree(req.Repository.Path, dir); err != nil {
			ws.Remove()
			return nil, failf(domain.CodeInternalError, "copy repository %s: %v", req.Repository.Path, err)
		}
	}
	for i, a := range req.Artifacts {
		dst := filepath.Join(dir, filepath.FromSlash(path.Clean(a.Path)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			ws.Remove()
			return nil, failf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
		if err := os.WriteFile(dst, []byte(a.Content), 0o644); err != nil {
			ws.Remove()
			return nil, failf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
	}
	return ws, nil
}

// checkArtifactPath rejects empty, absolute and escaping paths.
func checkArtifactPath(p string) error {
	if p == "" {
		return errors.New("field path is empty")
	}
	if path.IsAbs(p) || filepath.IsAbs(p) || strings.HasPrefix(p, `\`) {
		return fmt.Errorf("field path %q is absolute", p)
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	if clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
		return fmt.Errorf("field path %q escapes the repository", p)
	}
	return nil
}

// copyTree copies regular files and directories from src to dst, skipping
// .git and symbolic links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && rel != "." {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// relPath turns a path printed by the toolchain into a slash-separated path
// relative to the workspace root.
func (w *workspace) relPath(p string) string {
	if filepath.IsAbs(p) {
		if rel, err := filepath.Rel(w.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
			p = rel
		} else if real, err := filepath.EvalSymlinks(w.dir); err == nil {
			if rel, err := filepath.Rel(real, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
	}
	return strings.TrimPrefix(filepath.ToSlash(p), "./")
}

// modulePath returns the module path declared in the workspace's go.mod, or
// "" when there is none.
func (w *workspace) modulePath() string {
	data, err := os.ReadFile(filepath.Join(w.dir, "go.mod"))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
