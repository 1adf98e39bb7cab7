package langmap

import (
	"encoding/json"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/cogworks/cogworks/domain"
)

// assembler knows the repository's manifests: which directories are
// Python packages (__init__.py), npm packages (package.json) and Rust
// crates (Cargo.toml), and their names.
type assembler struct {
	inits  map[string]bool   // directories holding __init__.py
	npm    map[string]string // directory → package.json name
	crates map[string]string // directory → crate name, as `use` spells it
	py     string            // the root pyproject's project name
}

func newAssembler(fsys fs.FS, markers map[string]bool) *assembler {
	a := &assembler{inits: map[string]bool{}, npm: map[string]string{}, crates: map[string]string{}}
	for p := range markers {
		dir := path.Dir(p)
		switch path.Base(p) {
		case "__init__.py":
			a.inits[dir] = true
		case "package.json":
			var m struct {
				Name string `json:"name"`
			}
			if b, err := readSmall(fsys, p); err == nil && json.Unmarshal(b, &m) == nil && m.Name != "" {
				a.npm[dir] = m.Name
			}
		case "Cargo.toml":
			var m struct {
				Package struct{ Name string } `toml:"package"`
			}
			if b, err := readSmall(fsys, p); err == nil && toml.Unmarshal(b, &m) == nil && m.Package.Name != "" {
				a.crates[dir] = strings.ReplaceAll(m.Package.Name, "-", "_")
			}
		case "pyproject.toml":
			var m struct {
				Project struct{ Name string } `toml:"project"`
			}
			if b, err := readSmall(fsys, p); err == nil && dir == "." && toml.Unmarshal(b, &m) == nil {
				a.py = m.Project.Name
			}
		}
	}
	return a
}

// readSmall reads a manifest, refusing one too large to be real.
func readSmall(fsys fs.FS, p string) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 256<<10))
}

// rootModule is the name of the project at the repository root: its npm
// package, crate or Python project, "" when it has none.
func (a *assembler) rootModule() string {
	for _, m := range []string{a.npm["."], a.crates["."], a.py} {
		if m != "" {
			return m
		}
	}
	return ""
}

// nearest returns the closest directory at or above dir present in m.
func nearest(m map[string]string, dir string) (string, bool) {
	for d := dir; ; d = path.Dir(d) {
		if _, ok := m[d]; ok {
			return d, true
		}
		if d == "." || d == "/" {
			return "", false
		}
	}
}

// identity returns the import path and name of the package in dir.
//   - Python: the dotted path from the topmost directory of its
//     __init__.py chain; a directory without one is dotted from the root,
//     with a leading src/ dropped (src layout: src/pkg is `pkg`).
//   - TypeScript/JavaScript: the nearest package.json's name joined with
//     the directory below it; without one, the directory itself.
//   - Rust: the crate name for src/, crate::a::b for src/a/b; other
//     directories (tests/, examples/) by their path.
//   - Java: the package clause.
func (a *assembler) identity(lang *language, dir string, files []mapFile) (importPath, name string) {
	switch lang.name {
	case "python":
		ip := a.pythonPackage(dir)
		if ip == "" { // top-level modules import by their own names
			return "", a.py
		}
		return ip, ip[strings.LastIndex(ip, ".")+1:]
	case "typescript":
		if root, ok := nearest(a.npm, dir); ok {
			rel := strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")
			if root == "." {
				rel = strings.TrimPrefix(dir, ".")
			}
			if rel == "" {
				return a.npm[root], path.Base(a.npm[root])
			}
			return a.npm[root] + "/" + rel, path.Base(dir)
		}
		return dir, path.Base(dir)
	case "rust":
		if mod, ok := a.rustModule(dir); ok {
			return mod, mod[strings.LastIndex(mod, ":")+1:]
		}
		return dir, path.Base(dir)
	case "java":
		for _, f := range files {
			if f.lang.name == "java" && f.info.pkgName != "" {
				return f.info.pkgName, f.info.pkgName[strings.LastIndex(f.info.pkgName, ".")+1:]
			}
		}
		return "", ""
	}
	return dir, path.Base(dir)
}

// pythonPackage is the dotted import path of a Python directory.
func (a *assembler) pythonPackage(dir string) string {
	if a.inits[dir] {
		top := dir
		for p := path.Dir(top); p != "." && a.inits[p]; p = path.Dir(p) {
			top = p
		}
		rel := dir
		if parent := path.Dir(top); parent != "." {
			rel = strings.TrimPrefix(dir, parent+"/")
		}
		return strings.ReplaceAll(rel, "/", ".")
	}
	if dir == "." || dir == "src" {
		return ""
	}
	return strings.ReplaceAll(strings.TrimPrefix(dir, "src/"), "/", ".")
}

// rustModule is the module path of a directory under a crate's src/.
func (a *assembler) rustModule(dir string) (string, bool) {
	root, ok := nearest(a.crates, dir)
	if !ok {
		return "", false
	}
	src := path.Join(root, "src")
	if dir != src && !strings.HasPrefix(dir, src+"/") {
		return "", false
	}
	mod := a.crates[root]
	if rest := strings.TrimPrefix(strings.TrimPrefix(dir, src), "/"); rest != "" {
		mod += "::" + strings.ReplaceAll(rest, "/", "::")
	}
	return mod, true
}

// rustFileModule is the module path of a Rust file (self:: in its `use`).
func (a *assembler) rustFileModule(f mapFile) string {
	mod, ok := a.rustModule(f.dir)
	if !ok {
		return ""
	}
	switch base := strings.TrimSuffix(path.Base(f.path), ".rs"); base {
	case "mod", "lib", "main":
		return mod
	default:
		return mod + "::" + base
	}
}

// isTest applies each language's test-file convention.
func (a *assembler) isTest(f mapFile) bool {
	base := path.Base(f.path)
	segs := strings.Split(f.dir, "/")
	has := func(names ...string) bool {
		for _, s := range segs {
			for _, n := range names {
				if s == n {
					return true
				}
			}
		}
		return false
	}
	switch f.lang.name {
	case "python":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" || has("tests", "test")
	case "typescript":
		stem := strings.TrimSuffix(base, path.Ext(base))
		// test/ is mocha's default directory, tests/ a common one.
		return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || has("__tests__", "test", "tests")
	case "rust":
		root, ok := nearest(a.crates, f.dir)
		if !ok {
			return has("tests")
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(f.path, root), "/")
		return strings.HasPrefix(rel, "tests/")
	case "java":
		return strings.Contains("/"+f.path, "/src/test/") || strings.HasSuffix(base, "Test.java") || strings.HasSuffix(base, "Tests.java")
	}
	return false
}

// rustTestFiles returns the files of the `#[cfg(test)] mod x;` modules:
// x.rs or x/mod.rs beside a mod.rs/lib.rs/main.rs, under the file's own
// directory otherwise.
func (a *assembler) rustTestFiles(files []mapFile) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		dir := f.dir
		switch base := strings.TrimSuffix(path.Base(f.path), ".rs"); base {
		case "mod", "lib", "main":
		default:
			dir = path.Join(dir, base)
		}
		for _, m := range f.info.testMods {
			out[path.Join(dir, m+".rs")] = true
			out[path.Join(dir, m, "mod.rs")] = true
		}
	}
	return out
}

// resolve turns an import as written into an import path: relative
// imports are made absolute, and an import of something inside a known
// package (a module, a class, a file) becomes that package's path.
// External imports stay as written.
func (a *assembler) resolve(f mapFile, imp string, pkgs map[string]*domain.MapPackage, known []string) string {
	switch f.lang.name {
	case "python":
		if strings.HasPrefix(imp, ".") {
			rest := strings.TrimLeft(imp, ".")
			up := len(imp) - len(rest) - 1
			segs := strings.Split(a.pythonPackage(f.dir), ".")
			if segs[0] == "" {
				segs = nil
			}
			if up > len(segs) {
				return ""
			}
			segs = segs[:len(segs)-up]
			if rest != "" {
				segs = append(segs, rest)
			}
			imp = strings.Join(segs, ".")
		}
	case "typescript":
		if strings.HasPrefix(imp, "./") || strings.HasPrefix(imp, "../") || imp == "." || imp == ".." {
			target := path.Join(f.dir, imp)
			if target == ".." || strings.HasPrefix(target, "../") {
				return ""
			}
			for d := target; ; d = path.Dir(d) {
				if q, ok := pkgs[d]; ok {
					return q.ImportPath
				}
				if d == "." {
					return ""
				}
			}
		}
	case "rust":
		imp = a.rustAbsolute(f, imp)
	}
	if imp == "" {
		return ""
	}
	return longestPrefix(imp, known, f.lang.sep)
}

// rustAbsolute makes a `use` path starting with crate::, self:: or
// super:: (repeated) absolute; other paths are returned as they are.
func (a *assembler) rustAbsolute(f mapFile, imp string) string {
	segs := strings.Split(imp, "::")
	var cur string
	i := 0
	switch segs[0] {
	case "crate":
		root, ok := nearest(a.crates, f.dir)
		if !ok {
			return imp
		}
		cur, i = a.crates[root], 1
	case "self":
		cur, i = a.rustFileModule(f), 1
	case "super":
		cur = a.rustFileModule(f)
		for ; i < len(segs) && segs[i] == "super"; i++ {
			k := strings.LastIndex(cur, "::")
			if k < 0 {
				return ""
			}
			cur = cur[:k]
		}
	default:
		return imp
	}
	if cur == "" {
		return ""
	}
	return strings.Join(append([]string{cur}, segs[i:]...), "::")
}
