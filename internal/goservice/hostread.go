package goservice

import (
	"path"

	"github.com/cogworks/cogworks/internal/beneath"
)

// maxHostRead bounds what the service reads back from a workspace on the
// host: a go.mod or a Go source file the toolchain named. A larger file
// is read as absent.
const maxHostRead = 8 << 20

// readFile reads the workspace file rel (slash-separated) on the host,
// outside the sandbox, after sandboxed code may have replaced anything in
// the workspace: a link to a host file, a FIFO, a link to /dev/zero. It
// never follows a link and reads only a regular file of at most
// maxHostRead bytes, without blocking (see package beneath). A path at or
// under a link that mirror made is read from the repository instead,
// beneath its root: the sandbox mounts the repository read-only, so what
// is there is what mirror linked, whatever now sits at the link's place.
func (w *workspace) readFile(rel string) ([]byte, error) {
	root, rel := w.hostRoot(rel)
	return beneath.ReadFile(root, rel, maxHostRead)
}

// isFile reports whether rel is a regular file of the workspace, checked
// as readFile reads it, without opening it.
func (w *workspace) isFile(rel string) bool {
	root, rel := w.hostRoot(rel)
	return beneath.IsRegular(root, rel)
}

// hostRoot returns the trusted root readFile resolves rel beneath: the
// repository for a path at or under one of mirror's links, else the
// workspace.
func (w *workspace) hostRoot(rel string) (string, string) {
	rel = path.Clean(rel)
	for p := rel; p != "." && p != "/" && p != ".."; p = path.Dir(p) {
		if w.links[p] {
			return w.repo, rel
		}
	}
	return w.dir, rel
}
