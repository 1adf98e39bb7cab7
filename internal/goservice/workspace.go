package goservice

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// workspace is the repository as the toolchain must see it: the artifacts
// over the repository. It is a temporary directory that holds the artifacts
// as real files and, for everything else, symbolic links into the
// repository: along the directories that lead to an artifact it has real
// directories whose untouched files are copies (see copySibling) and whose
// subdirectories are links (but for those a //go:embed directive names
// and a touched package's testdata, mirrored whole), and every other
// subtree is one link. Preparing
// it writes only the changed files plus the files and one link per
// subdirectory of the directories on an artifact's path, never a copy of
// the repository, so a request costs the same on a 10-file and a
// 10,000-file repository. Remove must always be called.
//
// The go command does not follow linked directories when it expands "..."
// patterns, so commands get their patterns through packagePatterns. Code
// run by `go test` in a package that no artifact touches runs in the
// repository's own directory (through the link), as it would in a checkout;
// packages holding an artifact run in the temporary directory.
type workspace struct {
	dir string
	// repo is the repository's absolute path ("" when the request has none).
	repo string
	// linkedDirs are the slash-separated workspace paths of the directories
	// linked into the repository, in walk order.
	linkedDirs []string
	// links holds the slash-separated workspace path of every link mirror
	// made (directories and files), recorded before any sandboxed step:
	// readFile reads what is under them from the repository, which the
	// sandbox only reads, never through a link the workspace now holds.
	links map[string]bool
	// goTrees caches holdsGo per linked directory.
	goTrees map[string]bool
	// downloaded is set once `go mod download` succeeded for the request.
	downloaded bool
	// artifactGo holds the Go artifacts' contents by slash-separated
	// directory, for the //go:embed patterns of the mirrored directories.
	artifactGo map[string][]string
	// touched holds the slash-separated directories that directly hold an
	// artifact: their packages run in the workspace.
	touched map[string]bool
	// copied counts the bytes copySibling wrote, against copyBudget
	// (maxWorkspaceCopy).
	copied, copyBudget int64
	// baseBytes is the workspace's disk usage before its first go command
	// (baseKnown once measured): the workspace quota bounds what generated
	// code adds to it, not what the request brought.
	baseBytes int64
	baseKnown bool
	// heldOut holds the slash-separated held-out scenario directories
	// left out of the workspace (see heldOutDirs).
	heldOut map[string]bool
	// tenant is the request's domain.Repository.Tenant.
	tenant string
}

// mirrorMode is how mirror fills a real directory of the workspace.
type mirrorMode int

const (
	// mirrorLinks copies the files up to maxSiblingCopy and links the
	// subdirectories.
	mirrorLinks mirrorMode = iota
	// mirrorTree mirrors the subdirectories too (a touched package's
	// testdata: filepath.Walk and WalkDir do not descend into a linked
	// root, so a test walking it would see no file and pass vacuously).
	mirrorTree
	// mirrorEmbedded mirrors the subdirectories and copies every file: the
	// go command embeds no link.
	mirrorEmbedded
)

// Remove deletes the temporary directory (links only, never their targets).
func (w *workspace) Remove() { _ = removeTree(w.dir) }

// prepareWorkspace builds the workspace of req in a new temporary directory:
// req.Repository.Path (without .git, symbolic links and other non-regular
// files at the levels it mirrors) with the artifacts written over it.
func prepareWorkspace(req domain.Request) (*workspace, error) {
	return prepareWorkspaceCopying(req, maxWorkspaceCopy)
}

// prepareWorkspaceCopying is prepareWorkspace with a copy budget of budget
// bytes.
func prepareWorkspaceCopying(req domain.Request, budget int64) (*workspace, error) {
	files := make(map[string]bool, len(req.Artifacts))
	dirs := map[string]bool{".": true}
	ws := &workspace{touched: map[string]bool{}, copyBudget: budget, tenant: req.Repository.Tenant}
	for i, a := range req.Artifacts {
		if err := checkArtifactPath(a.Path); err != nil {
			return nil, extserver.Errorf(domain.CodeInvalidRequest, "artifacts[%d]: %v", i, err)
		}
	}
	ws.heldOut = heldOutDirs(req)
	req.Artifacts = slices.DeleteFunc(slices.Clone(req.Artifacts), func(a domain.Artifact) bool {
		return underAny(path.Clean(a.Path), ws.heldOut)
	})
	for _, a := range req.Artifacts {
		rel := path.Clean(a.Path)
		files[rel] = true
		ws.touched[path.Dir(rel)] = true
		if strings.HasSuffix(rel, ".go") && !a.Delete {
			if ws.artifactGo == nil {
				ws.artifactGo = map[string][]string{}
			}
			ws.artifactGo[path.Dir(rel)] = append(ws.artifactGo[path.Dir(rel)], a.Content)
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	if req.Repository.Path != "" {
		info, err := os.Stat(req.Repository.Path)
		if err != nil || !info.IsDir() {
			return nil, extserver.Errorf(domain.CodeArtifactNotFound, "repository.path %q is not a readable directory", req.Repository.Path)
		}
		if ws.repo, err = filepath.Abs(req.Repository.Path); err != nil {
			return nil, extserver.Errorf(domain.CodeInternalError, "resolve repository.path %q: %v", req.Repository.Path, err)
		}
	}
	dir, err := os.MkdirTemp("", workspacePrefix)
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "create workspace: %v", err)
	}
	ws.dir = dir
	if ws.repo != "" {
		if err := ws.mirror(".", dirs, files, mirrorLinks); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "link repository %s: %v", ws.repo, err)
		}
		if err := ws.copyModuleFiles(); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "copy module files of %s: %v", ws.repo, err)
		}
	}
	for i, a := range req.Artifacts {
		if a.Delete {
			continue // listed in files, so mirror left it out: it is gone
		}
		dst := filepath.Join(dir, filepath.FromSlash(path.Clean(a.Path)))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
		if err := os.WriteFile(dst, []byte(a.Content), 0o644); err != nil {
			ws.Remove()
			return nil, extserver.Errorf(domain.CodeInternalError, "artifacts[%d] %s: %v", i, a.Path, err)
		}
	}
	return ws, nil
}

// copyModuleFiles replaces the links to the repository's root go.mod and
// go.sum by copies: the go command may record missing go.sum hashes (or
// tidy go.mod) in the request's scratch, while the repository itself is
// read-only in the sandbox.
func (w *workspace) copyModuleFiles() error {
	for _, name := range []string{"go.mod", "go.sum"} {
		p := filepath.Join(w.dir, name)
		info, err := os.Lstat(p)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue // absent, or an artifact
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.Remove(p); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mirror makes rel a real directory of the workspace and fills it with
// copies of the repository's files of rel (see copySibling) and links to
// its subdirectories, except .git, the held-out scenario directories
// outside scenario runs (see heldOutDirs), the entries that are themselves
// on an artifact's path (mirrored in turn) and the artifact files (written by the
// caller). A subdirectory a //go:embed directive of rel names, and the
// testdata of a directory holding an artifact, are mirrored whole (see
// mirrorMode). As with the copy the service made before, the repository's
// symbolic links and special files are left out.
func (w *workspace) mirror(rel string, dirs, files map[string]bool, mode mirrorMode) error {
	if err := os.MkdirAll(filepath.Join(w.dir, filepath.FromSlash(rel)), 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(w.repo, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	embedded := w.embeddedNames(rel, entries)
	for _, e := range entries {
		child := path.Join(rel, e.Name())
		childMode := mode
		switch {
		case embedded[e.Name()]:
			childMode = mirrorEmbedded
		case mode == mirrorLinks && e.Name() == "testdata" && w.touched[rel]:
			childMode = mirrorTree
		}
		switch {
		case e.Name() == ".git", files[child], w.heldOut[child]:
			continue
		case dirs[child] || (childMode != mirrorLinks && e.IsDir()):
			if e.IsDir() {
				if err := w.mirror(child, dirs, files, childMode); err != nil {
					return err
				}
			}
			continue // otherwise the artifacts' MkdirAll creates it
		case !e.IsDir() && !e.Type().IsRegular():
			continue
		case !e.IsDir():
			copied, err := w.copySibling(child, childMode == mirrorEmbedded)
			if err != nil {
				return err
			}
			if copied {
				continue
			}
		}
		if err := os.Symlink(filepath.Join(w.repo, filepath.FromSlash(child)), filepath.Join(w.dir, filepath.FromSlash(child))); err != nil {
			return err
		}
		if w.links == nil {
			w.links = map[string]bool{}
		}
		w.links[child] = true
		if e.IsDir() {
			w.linkedDirs = append(w.linkedDirs, child)
		}
	}
	return nil
}

// packagePatterns returns patterns for the go command that match, in the
// workspace, what the given patterns match in the repository with the
// artifacts applied. A "..." pattern rooted at a real directory of the
// workspace is completed with one "./<linked dir>/..." pattern per linked
// directory under its root that the go command would have walked (not
// testdata, vendor, hidden or "_" directories, nor nested modules) and that
// holds Go files: a linked tree of documentation or data is left out, so
// that the go command walks it neither for build nor for vet.
func (w *workspace) packagePatterns(patterns ...string) []string {
	out := make([]string, 0, len(patterns))
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	module := w.modulePath()
	for _, p := range patterns {
		add(p)
		root, ok := patternRoot(p, module)
		if !ok {
			continue
		}
		for _, l := range w.linkedDirs {
			if rest, under := strings.CutPrefix(l, root+"/"); (root == "." || under) && w.walked(root, l, rest) && w.holdsGo(l) {
				add("./" + l + "/...")
			}
		}
	}
	return out
}

// holdsGo reports whether the linked directory l has a .go file in a
// directory the go command's pattern walk would visit. Read errors count
// as Go files, so that the go command sees the directory and reports them.
func (w *workspace) holdsGo(l string) bool {
	if found, ok := w.goTrees[l]; ok {
		return found
	}
	found := false
	root := filepath.Join(w.repo, filepath.FromSlash(l))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == root {
				return nil
			}
			if goIgnoredDir(name) {
				return filepath.SkipDir
			}
			if info, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && !info.IsDir() {
				return filepath.SkipDir // a nested module
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		found = true
	}
	if w.goTrees == nil {
		w.goTrees = map[string]bool{}
	}
	w.goTrees[l] = found
	return found
}

// patternRoot returns the slash-separated workspace directory a "..."
// pattern walks from: "./..." and module/... walk ".", "./a/b/..." and
// module/a/b/... walk "a/b".
func patternRoot(p, module string) (string, bool) {
	rest, ok := strings.CutSuffix(p, "/...")
	if !ok {
		return "", false
	}
	switch {
	case rest == "." || (module != "" && rest == module):
		return ".", true
	case strings.HasPrefix(rest, "./"):
		return path.Clean(rest), true
	case module != "" && strings.HasPrefix(rest, module+"/"):
		return path.Clean(strings.TrimPrefix(rest, module+"/")), true
	}
	return "", false
}

// walked reports whether the go command, expanding a pattern rooted at
// root, would reach the linked directory l (rest is l below root).
func (w *workspace) walked(root, l, rest string) bool {
	if root == "." {
		rest = l
	}
	prefix := root
	for _, elem := range strings.Split(rest, "/") {
		if elem == "testdata" || elem == "vendor" || strings.HasPrefix(elem, ".") || strings.HasPrefix(elem, "_") {
			return false
		}
		prefix = path.Join(prefix, elem)
		if w.isFile(path.Join(prefix, "go.mod")) {
			return false // a nested module
		}
	}
	return true
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

// walkDir walks the workspace like filepath.WalkDir, descending into the
// directories linked into the repository as if they were copies: paths
// passed to fn are workspace paths.
func (w *workspace) walkDir(fn fs.WalkDirFunc) error {
	linked := make(map[string]bool, len(w.linkedDirs))
	for _, l := range w.linkedDirs {
		linked[l] = true
	}
	return filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return fn(p, d, err)
		}
		rel := w.relPath(p)
		if !linked[rel] {
			return fn(p, d, nil)
		}
		target := filepath.Join(w.repo, filepath.FromSlash(rel))
		return filepath.WalkDir(target, func(q string, d fs.DirEntry, err error) error {
			sub, rerr := filepath.Rel(target, q)
			if rerr != nil {
				return rerr
			}
			return fn(filepath.Join(p, sub), d, err)
		})
	})
}

// workspacePrefix starts the name of every workspace directory.
const workspacePrefix = "cogworks-go-"

// relPath turns a path printed by the toolchain into a slash-separated path
// relative to the workspace root.
func (w *workspace) relPath(p string) string {
	if filepath.IsAbs(p) {
		p = w.relAbs(p)
	}
	return strings.TrimPrefix(filepath.ToSlash(p), "./")
}

// relAbs relativises an absolute path printed by the toolchain: under the
// sandbox's fixed workspace path, this workspace's host path, or (when go
// vet replays a cached finding from a run without the sandbox) another
// workspace's path, which maps to the same file in this one.
func (w *workspace) relAbs(p string) string {
	roots := []string{workspaceMount, w.dir}
	if real, err := filepath.EvalSymlinks(w.dir); err == nil {
		roots = append(roots, real)
	}
	if w.repo != "" {
		roots = append(roots, w.repo) // a linked path the toolchain resolved
	}
	for _, root := range roots {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	slashed := filepath.ToSlash(p)
	if i := strings.LastIndex(slashed, "/"+workspacePrefix); i >= 0 {
		if _, rest, ok := strings.Cut(slashed[i+1:], "/"); ok {
			return rest
		}
	}
	return p
}

// maxSiblingCopy bounds the size of a file copied next to an artifact;
// a larger one stays a link (its package then sees a link, as before).
const maxSiblingCopy = 4 << 20

// maxWorkspaceCopy bounds what copySibling copies into one workspace:
// artifacts are untrusted, and one naming the whole repository in a
// //go:embed pattern must not make every request copy it. Beyond it files
// stay links (an embed of them then fails with the go command's error).
const maxWorkspaceCopy = 256 << 20

// copySibling copies the repository's regular file rel into the workspace
// when it is at most maxSiblingCopy bytes or embedded (a //go:embed
// directive names it or a directory above it), and reports whether it did.
// Files that share a directory with an artifact are copies, not links: the
// go command refuses to embed a link ("cannot embed irregular file"), so a
// fix to a package that embeds a sibling file would not build, and a test
// that writes a file next to its package's sources (testify's assert makes
// symbolic links there) would write through the link into the read-only
// repository. Only the directories on an artifact's path (and the trees
// mirrorMode names) are mirrored, so the copies cost their files, at most
// the workspace's copy budget, never the repository's size.
func (w *workspace) copySibling(rel string, embedded bool) (bool, error) {
	src := filepath.Join(w.repo, filepath.FromSlash(rel))
	info, err := os.Lstat(src)
	if err != nil {
		return false, err
	}
	if !info.Mode().IsRegular() || (info.Size() > maxSiblingCopy && !embedded) || w.copied+info.Size() > w.copyBudget {
		return false, nil
	}
	w.copied += info.Size()
	data, err := os.ReadFile(src)
	if err != nil {
		return false, err
	}
	if err := os.WriteFile(filepath.Join(w.dir, filepath.FromSlash(rel)), data, info.Mode().Perm()|0o200); err != nil {
		return false, err
	}
	return true, nil
}

// modulePath returns the module path declared in the workspace's go.mod, or
// "" when there is none.
func (w *workspace) modulePath() string {
	data, err := w.readFile("go.mod")
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

// goIgnoredDir reports a directory the go command leaves out of "./..."
// patterns (testdata, vendor, and names starting with "." or "_"), which
// the walks over a workspace's packages leave out too.
func goIgnoredDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}
