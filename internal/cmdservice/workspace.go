package cmdservice

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
	"github.com/cogworks/cogworks/domain/extserver"
	"github.com/cogworks/cogworks/internal/config"
)

// maxWorkspaceCopy bounds the bytes a workspace copies from the
// repository: a toolchain service copies (it cannot follow the Go
// service's links, as npm, pip and cargo write next to the sources).
const maxWorkspaceCopy = 1 << 30

// scenarioStage is the stage whose requests may see the held-out
// scenarios (as in internal/goservice).
const scenarioStage = "scenario-validation"

// workspace is a request's private copy of the repository with its
// artifacts overlaid. Remove must always be called.
type workspace struct {
	dir string
	// files holds every regular file the workspace had before any command
	// ran (slash-separated): a diagnostic may name only these.
	files map[string]bool
	// baseBytes is its disk usage before any command (see checkQuota).
	baseBytes int64
}

// Remove deletes the workspace.
func (w *workspace) Remove() { _ = os.RemoveAll(w.dir) }

// heldOut returns the scenario directories a request must not see.
func heldOut(req domain.Request) map[string]bool {
	if req.Stage == scenarioStage {
		return nil
	}
	dirs := map[string]bool{".cogworks/scenarios": true}
	cfg := config.Default()
	if req.Repository.Path != "" {
		if c, err := config.Load(req.Repository.Path); err == nil {
			cfg = c
		}
	}
	if d := path.Clean(filepath.ToSlash(cfg.Scenarios.Directory)); d != "." && !strings.HasPrefix(d, "..") && !path.IsAbs(d) {
		dirs[d] = true
	}
	return dirs
}

func under(rel string, dirs map[string]bool) bool {
	for p := rel; p != "." && p != "/"; p = path.Dir(p) {
		if dirs[p] {
			return true
		}
	}
	return false
}

// checkArtifactPath refuses absolute paths and paths that leave the root.
func checkArtifactPath(p string) error {
	c := path.Clean(filepath.ToSlash(p))
	if p == "" || path.IsAbs(c) || c == "." || c == ".." || strings.HasPrefix(c, "../") || strings.Contains(p, "\x00") {
		return fmt.Errorf("path %q must be relative and stay inside the repository", p)
	}
	return nil
}

// prepareWorkspace copies req.Repository.Path (regular files and
// directories only; no .git, no held-out scenarios) into a new temporary
// directory and writes the artifacts over it.
func prepareWorkspace(req domain.Request) (*workspace, error) {
	hidden := heldOut(req)
	for i, a := range req.Artifacts {
		if err := checkArtifactPath(a.Path); err != nil {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "artifacts[%d]: %v", i, err)
		}
	}
	dir, err := os.MkdirTemp("", "cogworks-cmdws-")
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "create workspace: %v", err)
	}
	ws := &workspace{dir: dir, files: map[string]bool{}}
	if repo := req.Repository.Path; repo != "" {
		if info, err := os.Stat(repo); err != nil || !info.IsDir() {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeArtifactNotFound, "repository.path %q is not a readable directory", repo)
		}
		if err := ws.copyTree(repo, hidden); err != nil {
			ws.Remove()
			return nil, err
		}
	}
	for i, a := range req.Artifacts {
		rel := path.Clean(filepath.ToSlash(a.Path))
		if under(rel, hidden) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(rel))
		if a.Delete {
			_ = os.Remove(dst)
			delete(ws.files, rel)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
		if err := os.WriteFile(dst, []byte(a.Content), 0o644); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
		ws.files[rel] = true
	}
	if ws.baseBytes, err = diskUsage(dir); err != nil {
		ws.Remove()
		return nil, extserver.Errorf(domain.CodeInternalError, "measure workspace %s: %v", dir, err)
	}
	return ws, nil
}

// copyTree copies the repository's directories and regular files. A link
// whose target lies inside the repository (outside .git and the held-out
// directories) becomes a relative link to the same target in the copy:
// node_modules/.bin holds links into node_modules, and Python projects
// link shared modules into tests/ (python-semver does). Other links and
// special files are left out, so nothing in the copy points outside it.
func (w *workspace) copyTree(repo string, hidden map[string]bool) error {
	var copied int64
	root, err := filepath.EvalSymlinks(repo)
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "copy repository %s: %v", repo, err)
	}
	err = filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repo, p)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if d.Name() == ".git" || under(slash, hidden) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(w.dir, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(dst, 0o755)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			if copied += info.Size(); copied > maxWorkspaceCopy {
				return errors.New("the repository exceeds the workspace copy budget")
			}
			w.files[slash] = true
			return copyFile(p, dst, info.Mode().Perm()|0o600)
		case d.Type()&fs.ModeSymlink != 0:
			target, isFile, ok := linkTarget(root, p)
			if !ok || under(target, hidden) {
				return nil
			}
			text, err := filepath.Rel(filepath.Dir(rel), filepath.FromSlash(target))
			if err != nil {
				return nil
			}
			if isFile {
				w.files[slash] = true
			}
			return os.Symlink(text, dst)
		}
		return nil
	})
	if err != nil {
		return extserver.Errorf(domain.CodeInternalError, "copy repository %s: %v", repo, err)
	}
	return nil
}

// linkTarget resolves the link p and returns its final target, relative
// to root (slash-separated), when that is a file or directory inside
// root and outside .git; ok is false for any other link.
func linkTarget(root, p string) (target string, isFile, ok bool) {
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false, false
	}
	rel, err := filepath.Rel(root, resolved)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false, false
	}
	slash := filepath.ToSlash(rel)
	if slash == ".git" || strings.HasPrefix(slash, ".git/") {
		return "", false, false
	}
	info, err := os.Stat(resolved)
	if err != nil || (!info.Mode().IsRegular() && !info.IsDir()) {
		return "", false, false
	}
	return slash, info.Mode().IsRegular(), true
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
