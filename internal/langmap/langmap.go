package langmap

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// maxFileSize bounds the files read: a larger one is a generated or
// minified file, listed with a diagnostic and no symbols.
const maxFileSize = 1 << 20

// fileInfo is what a language parser reads from one file.
type fileInfo struct {
	symbols []domain.Symbol
	// imports are as written; relative ones are resolved by the package.
	imports []string
	// pkgName is Java's package clause.
	pkgName string
	// testMods are Rust `#[cfg(test)] mod x;` declarations.
	testMods []string
	lines    int
}

// language is one supported source language.
type language struct {
	name  string
	exts  []string
	parse func([]byte) fileInfo
	// sep separates the segments of an import path.
	sep string
}

var languages = []language{
	{name: "python", exts: []string{".py", ".pyi"}, parse: parsePython, sep: "."},
	{name: "typescript", exts: []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}, parse: parseTypeScript, sep: "/"},
	{name: "rust", exts: []string{".rs"}, parse: parseRust, sep: "::"},
	{name: "java", exts: []string{".java"}, parse: parseJava, sep: "."},
}

// languageOf returns the language of a file name, or nil.
func languageOf(name string) *language {
	ext := path.Ext(name)
	for i := range languages {
		if slices.Contains(languages[i].exts, ext) {
			return &languages[i]
		}
	}
	return nil
}

// Supported reports whether Map reads files with this name.
func Supported(name string) bool { return languageOf(name) != nil }

// ignoredDir names directories that hold no source of the repository's
// own: dependencies, build output, caches, virtual environments.
func ignoredDir(name string) bool {
	switch name {
	case "node_modules", "target", "vendor", "dist", "build", "out", "__pycache__", "venv", "site-packages", "testdata":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// mapFile is one read source file before packages are assembled.
type mapFile struct {
	lang *language
	path string
	dir  string
	info fileInfo
}

// Map reads every Python, TypeScript/JavaScript, Rust and Java file of
// fsys (a checkout's root, os.DirFS(dir), or an overlay of it) and returns
// the repository map: one package per directory holding such files. It
// reads text only. Files it cannot read are listed with a diagnostic and
// no symbols; only a cancelled ctx or an unreadable tree is an error.
func Map(ctx context.Context, fsys fs.FS) (domain.RepoMapResult, error) {
	out := domain.RepoMapResult{Packages: []domain.MapPackage{}, Diagnostics: []domain.Diagnostic{}}
	var files []mapFile
	markers := map[string]bool{} // __init__.py, package.json, Cargo.toml paths
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && ignoredDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		switch d.Name() {
		case "__init__.py", "package.json", "Cargo.toml", "pyproject.toml":
			markers[p] = true
		}
		lang := languageOf(d.Name())
		if lang == nil || !d.Type().IsRegular() { // symlinks are not followed
			return nil
		}
		f := mapFile{lang: lang, path: p, dir: path.Dir(p)}
		src, rerr := readBounded(fsys, p, d)
		if rerr != nil {
			out.Diagnostics = append(out.Diagnostics, domain.Diagnostic{Artifact: p, Location: domain.Location{File: p},
				Severity: domain.SeverityInformational, Message: rerr.Error()})
		} else {
			f.info = lang.parse(src)
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return domain.RepoMapResult{}, fmt.Errorf("map repository: %w", err)
	}
	a := newAssembler(fsys, markers)
	out.Module = a.rootModule()
	out.Packages = a.packages(files)
	return out, nil
}

// readBounded reads a file of at most maxFileSize bytes.
func readBounded(fsys fs.FS, p string, d fs.DirEntry) ([]byte, error) {
	fi, err := d.Info()
	if err != nil {
		return nil, fmt.Errorf("stat: %w", err)
	}
	if fi.Size() > maxFileSize {
		return nil, fmt.Errorf("not mapped: %d bytes is over the %d-byte limit (generated or minified?)", fi.Size(), maxFileSize)
	}
	src, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	return src, nil
}

// packages groups files by directory, names each package by its
// language's rules and resolves its imports against the other packages.
func (a *assembler) packages(files []mapFile) []domain.MapPackage {
	byDir := map[string][]mapFile{}
	for _, f := range files {
		byDir[f.dir] = append(byDir[f.dir], f)
	}
	pkgs := map[string]*domain.MapPackage{}
	langOf := map[string]*language{}
	for dir, fs := range byDir {
		lang := majority(fs)
		langOf[dir] = lang
		p := &domain.MapPackage{Dir: dir, Imports: []string{}, Files: []domain.MapFile{}}
		p.ImportPath, p.Name = a.identity(lang, dir, fs)
		pkgs[dir] = p
	}
	known := map[string][]string{} // language → import paths
	for dir, p := range pkgs {
		known[langOf[dir].name] = append(known[langOf[dir].name], p.ImportPath)
	}
	testFiles := a.rustTestFiles(files)
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		p := pkgs[dir]
		imports := map[string]bool{}
		for _, f := range byDir[dir] {
			syms := f.info.symbols
			if syms == nil {
				syms = []domain.Symbol{}
			}
			p.Files = append(p.Files, domain.MapFile{Path: f.path, Test: a.isTest(f) || testFiles[f.path], Lines: f.info.lines, Symbols: syms})
			for _, im := range f.info.imports {
				if r := a.resolve(f, im, pkgs, known[f.lang.name]); r != "" {
					imports[r] = true
				}
			}
		}
		delete(imports, p.ImportPath)
		p.Imports = slices.Sorted(maps.Keys(imports))
		if p.Imports == nil {
			p.Imports = []string{}
		}
		slices.SortFunc(p.Files, func(a, b domain.MapFile) int { return strings.Compare(a.Path, b.Path) })
	}
	out := make([]domain.MapPackage, 0, len(pkgs))
	for _, dir := range slices.Sorted(maps.Keys(pkgs)) {
		out = append(out, *pkgs[dir])
	}
	return out
}

// majority is the language most of a directory's files are in; a
// directory holds one package, named by that language's rules.
func majority(files []mapFile) *language {
	count := map[*language]int{}
	best := files[0].lang
	for _, f := range files {
		count[f.lang]++
		if count[f.lang] > count[best] {
			best = f.lang
		}
	}
	return best
}

// longestPrefix returns the longest of known that is imp or a prefix of
// it ending at a separator, or imp itself when none is.
func longestPrefix(imp string, known []string, sep string) string {
	best := ""
	for _, k := range known {
		if k != "" && (imp == k || strings.HasPrefix(imp, k+sep)) && len(k) > len(best) {
			best = k
		}
	}
	if best == "" {
		return imp
	}
	return best
}
