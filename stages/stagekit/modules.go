package stagekit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/cogworks/cogworks/internal/github"
)

// Modules are the repository's modules as the stages name them. Names
// lists every top-level directory that holds at least one file, every
// directory one level below a top-level one that directly holds Go files
// (a nested Go package such as "firmware/motor") and, when the root
// directory holds a Go package, that package: the root package is a module
// like any other. Hidden directories, testdata and vendor are skipped;
// Names is sorted.
type Modules struct {
	Names []string
	// Root is the name under which the root package is listed: its package
	// name ("pflag"), or, when that is "main" or also names a directory,
	// the module path (or "." without go.mod). Empty when the root
	// directory holds no Go package.
	Root string
	// ModulePath is go.mod's module path; empty without a go.mod.
	ModulePath string
	// Dirs maps a listed name to its directory where they differ: a
	// src/-layout Python package is listed by its import name ("pkg")
	// and lives in "src/pkg"; "src" itself is then not a module.
	Dirs map[string]string
}

// srcLayoutDir is the directory a src/-layout Python project keeps its
// packages in (PyPA's packaging guide); the package, not "src", is what
// a specification names.
const srcLayoutDir = "src"

// pythonPackageMarker marks a directory as a Python package.
const pythonPackageMarker = "__init__.py"

// Lookup returns the listed name of the module that name refers to: a
// listed name itself (after cleaning, so "./a/" is "a"), the root package
// by its listed name, "." or the module path, any package by its import
// path under the module path ("github.com/o/r/doc" is "doc"), and a
// src/-layout Python package by its directory ("src/pkg" is "pkg").
func (m Modules) Lookup(name string) (string, bool) {
	raw := strings.TrimSpace(strings.ReplaceAll(name, `\`, "/"))
	if m.Root != "" && (raw == "." || raw == "./" || raw == "/") {
		return m.Root, true
	}
	n := CleanModule(name)
	if n == "" {
		return "", false
	}
	if mp := CleanModule(m.ModulePath); mp != "" {
		switch {
		case n == mp && m.Root != "":
			return m.Root, true
		case strings.HasPrefix(n, mp+"/"):
			n = strings.TrimPrefix(n, mp+"/")
		}
	}
	if slices.Contains(m.Names, n) {
		return n, true
	}
	for listed, dir := range m.Dirs {
		if dir == n {
			return listed, true // "src/pkg" is the package pkg
		}
	}
	return "", false
}

// Dir returns the repository-relative directory of a listed module: "."
// for the root package, the name itself for any other.
func (m Modules) Dir(listed string) string {
	if m.Root != "" && listed == m.Root {
		return "."
	}
	if d, ok := m.Dirs[listed]; ok {
		return d
	}
	return listed
}

// withSrcLayout lists the Python packages of a src/ layout (src/<pkg>/
// holding __init__.py) by their import names in place of "src".
func (m Modules) withSrcLayout(pkgs []string) Modules {
	if len(pkgs) == 0 {
		return m
	}
	m.Names = slices.DeleteFunc(m.Names, func(n string) bool {
		return n == srcLayoutDir || strings.HasPrefix(n, srcLayoutDir+"/")
	})
	if m.Dirs == nil {
		m.Dirs = map[string]string{}
	}
	for _, p := range pkgs {
		if !slices.Contains(m.Names, p) {
			m.Names = append(m.Names, p)
		}
		m.Dirs[p] = srcLayoutDir + "/" + p
	}
	sort.Strings(m.Names)
	return m
}

// RepoModules lists the modules of the repository checked out at
// workspace (see Modules).
func RepoModules(workspace string) (Modules, error) {
	if workspace == "" {
		return Modules{}, errors.New("list repository modules: no workspace configured")
	}
	top, err := os.ReadDir(workspace)
	if err != nil {
		return Modules{}, fmt.Errorf("list repository modules in %s: %w", workspace, err)
	}
	var dirs, rootGo, srcPkgs []string
	for _, e := range top {
		if e.Type().IsRegular() && IsPackageSource(e.Name()) {
			rootGo = append(rootGo, e.Name())
		}
		if !e.IsDir() || skipModuleDir(e.Name()) {
			continue
		}
		dir := filepath.Join(workspace, e.Name())
		has, err := holdsFiles(dir)
		if err != nil {
			return Modules{}, fmt.Errorf("list repository modules: %w", err)
		}
		if !has {
			continue
		}
		dirs = append(dirs, e.Name())
		subs, err := os.ReadDir(dir)
		if err != nil {
			return Modules{}, fmt.Errorf("list repository modules in %s: %w", dir, err)
		}
		for _, s := range subs {
			if !s.IsDir() || skipModuleDir(s.Name()) {
				continue
			}
			if e.Name() == srcLayoutDir {
				if _, err := os.Stat(filepath.Join(dir, s.Name(), pythonPackageMarker)); err == nil {
					srcPkgs = append(srcPkgs, s.Name())
				}
			}
			goPkg, err := holdsGoFiles(filepath.Join(dir, s.Name()))
			if err != nil {
				return Modules{}, fmt.Errorf("list repository modules: %w", err)
			}
			if goPkg {
				dirs = append(dirs, e.Name()+"/"+s.Name())
			}
		}
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(filepath.Join(workspace, p)) }
	m, err := withRootPackage(dirs, rootGo, read)
	if err != nil {
		return Modules{}, err
	}
	return m.withSrcLayout(srcPkgs), nil
}

// MaxRootPackageReads bounds the root Go files read to name the root
// package: through the GitHub port each read is a request.
const MaxRootPackageReads = 4

// withRootPackage completes the directory modules dirs with the root
// package, named from the package clauses of rootGo (the root directory's
// non-test Go files) and go.mod, both read with read. A missing go.mod is
// no error; an unreadable one is.
func withRootPackage(dirs, rootGo []string, read func(p string) ([]byte, error)) (Modules, error) {
	m := Modules{Names: dirs}
	gomod, err := read("go.mod")
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, github.ErrNotFound):
	case err != nil:
		return Modules{}, fmt.Errorf("list repository modules: read go.mod: %w", err)
	default:
		m.ModulePath = modfile.ModulePath(gomod)
	}
	if len(rootGo) > 0 {
		pkg, err := rootPackageName(rootGo, read)
		if err != nil {
			return Modules{}, fmt.Errorf("list repository modules: %w", err)
		}
		m.Root = pkg
		if pkg == "" || pkg == "main" || slices.Contains(dirs, pkg) {
			m.Root = cmp.Or(m.ModulePath, ".")
		}
		m.Names = append(m.Names, m.Root)
	}
	sort.Strings(m.Names)
	return m, nil
}

// rootPackageName reads the package clause of the root Go files, doc.go
// first, and returns the first name that is not "main" ("main" when every
// file read is a command, "" when none parses). A file that does not
// parse is skipped: the toolchain, not the module list, reports it.
func rootPackageName(rootGo []string, read func(p string) ([]byte, error)) (string, error) {
	files := slices.Clone(rootGo)
	slices.SortFunc(files, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "doc.go":
			return -1
		case b == "doc.go":
			return 1
		}
		return strings.Compare(a, b)
	})
	name := ""
	for i, f := range files {
		if i == MaxRootPackageReads {
			break
		}
		src, err := read(f)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", f, err)
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, src, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		if name = parsed.Name.Name; name != "main" {
			return name, nil
		}
	}
	return name, nil
}

// IsPackageSource reports whether a file name is a Go source file of a
// package (not a test).
func IsPackageSource(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

func skipModuleDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor"
}

// holdsFiles reports whether dir contains a regular file at any depth
// (outside skipped directories).
func holdsFiles(dir string) (bool, error) {
	found := false
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && skipModuleDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", dir, err)
	}
	return found, nil
}

// holdsGoFiles reports whether dir directly contains a .go file.
func holdsGoFiles(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("scan %s: %w", dir, err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
			return true, nil
		}
	}
	return false, nil
}

// CheckGeneratedPaths rejects paths an LLM may not write: empty or
// absolute paths, paths with a ".." segment, and anything under
// .github/workflows/ or .cogworks/ (CI definitions and CogWorks's own
// configuration are never generated). Every offending path is reported,
// each by name.
func CheckGeneratedPaths(paths []string) error {
	var errs []error
	for _, p := range paths {
		if problem := GeneratedPathProblem(p); problem != "" {
			errs = append(errs, fmt.Errorf("generated path %q: %s", p, problem))
		}
	}
	return errors.Join(errs...)
}

// GeneratedPathProblem says why p may not be written by generated code, or "" when it may.
func GeneratedPathProblem(p string) string {
	s := strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	switch {
	case s == "":
		return "empty path"
	case strings.HasPrefix(s, "/") || filepath.IsAbs(p) || (len(s) >= 2 && s[1] == ':'):
		return "absolute paths are not allowed"
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == ".." {
			return `paths may not contain ".."`
		}
	}
	clean := strings.ToLower(path.Clean(s))
	switch {
	case clean == ".github/workflows" || strings.HasPrefix(clean, ".github/workflows/"):
		return "writing under .github/workflows/ is not allowed"
	case clean == ".cogworks" || strings.HasPrefix(clean, ".cogworks/"):
		return "writing under .cogworks/ is not allowed"
	case clean == ".":
		return "path names no file"
	}
	return ""
}

// CleanModule normalises a module path as the specification writes it.
func CleanModule(m string) string {
	m = strings.TrimSpace(strings.ReplaceAll(m, `\`, "/"))
	if m == "" {
		return ""
	}
	return strings.Trim(path.Clean(strings.TrimPrefix(m, "./")), "/")
}

// Modules lists the repository modules: from the workspace when there is
// one, else from the Code Repository port's file listing.
func (d Deps) Modules(ctx context.Context) (Modules, error) {
	if d.Workspace != "" {
		return RepoModules(d.Workspace)
	}
	if d.Repo == nil {
		return Modules{}, errors.New("list repository modules: neither a workspace nor a repository is configured")
	}
	paths, err := d.Repo.ListFiles(ctx)
	if err != nil {
		return Modules{}, fmt.Errorf("list repository modules: %w", err)
	}
	read := func(p string) ([]byte, error) { return d.Repo.ReadFile(ctx, p) }
	m, err := withRootPackage(modulesFromPaths(paths), rootGoFiles(paths), read)
	if err != nil {
		return Modules{}, err
	}
	return m.withSrcLayout(srcLayoutPackages(paths)), nil
}

// srcLayoutPackages returns the src/-layout Python packages of a listing.
func srcLayoutPackages(paths []string) []string {
	var out []string
	for _, p := range paths {
		segs := strings.Split(p, "/")
		if len(segs) == 3 && segs[0] == srcLayoutDir && segs[2] == pythonPackageMarker && !skipModuleDir(segs[1]) {
			out = append(out, segs[1])
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// modulesFromPaths applies RepoModules's directory rules to a file listing.
func modulesFromPaths(paths []string) []string {
	set := map[string]bool{}
	for _, p := range paths {
		segs := strings.Split(p, "/")
		if len(segs) < 2 || skipModuleDir(segs[0]) {
			continue
		}
		set[segs[0]] = true
		if len(segs) == 3 && !skipModuleDir(segs[1]) && path.Ext(segs[2]) == ".go" {
			set[segs[0]+"/"+segs[1]] = true
		}
	}
	out := make([]string, 0, len(set))
	for m := range set {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// rootGoFiles returns the root directory's non-test Go files of a listing.
func rootGoFiles(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !strings.Contains(p, "/") && IsPackageSource(p) {
			out = append(out, p)
		}
	}
	return out
}
