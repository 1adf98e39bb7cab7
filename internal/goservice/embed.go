package goservice

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// embeddedNames returns the names of rel's entries that a //go:embed
// directive of a Go file in rel (the repository's or an artifact) starts
// with: the go command refuses to embed a symbolic link ("cannot embed
// irregular file"), so the workspace holds those as real files and
// directories. A pattern whose first element is a glob is matched against
// the entries too.
func (w *workspace) embeddedNames(rel string, entries []fs.DirEntry) map[string]bool {
	var sources []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
			data, err := os.ReadFile(filepath.Join(w.repo, filepath.FromSlash(rel), e.Name()))
			if err == nil && strings.Contains(string(data), "//go:embed") {
				sources = append(sources, string(data))
			}
		}
	}
	sources = append(sources, w.artifactGo[rel]...)
	names := map[string]bool{}
	for _, src := range sources {
		for _, first := range embedFirstElements(src) {
			for _, e := range entries {
				if ok, err := path.Match(first, e.Name()); err == nil && ok {
					names[e.Name()] = true
				}
			}
		}
	}
	return names
}

// embedFirstElements returns the first path element of every pattern of
// the //go:embed directives in the Go source src ("all:" dropped, quotes
// removed). It reads directives the way the go command finds them, one per
// line comment; a pattern quoted with spaces inside is split at them, which
// only makes the workspace copy a name that is not embedded.
func embedFirstElements(src string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "//go:embed")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		for _, p := range strings.Fields(rest) {
			p = strings.Trim(p, "\"`")
			p = strings.TrimPrefix(p, "all:")
			first, _, _ := strings.Cut(p, "/")
			if first != "" {
				out = append(out, first)
			}
		}
	}
	return out
}
