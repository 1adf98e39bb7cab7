package goservice

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// maxSignature bounds a one-line signature; a longer one (a huge composite
// literal initialising a var, say) is cut, since the map is for finding code,
// not reading it.
const maxSignature = 200

// repoMap lists every package of the workspace with its imports and the
// one-line signatures of its top-level declarations, exported or not,
// test files included. It only parses (go/parser): no repository code and
// no go command runs, so it is cheap and safe on any checkout.
func (s *service) repoMap(ctx context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	module := ws.modulePath()
	out := domain.RepoMapResult{Module: module, Packages: []domain.MapPackage{}, Diagnostics: []domain.Diagnostic{}}
	byDir := map[string]*domain.MapPackage{}
	imports := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = ws.walkDir(func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != ws.dir && goIgnoredDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel := ws.relPath(p)
		dir := path.Dir(rel)
		pkg, ok := byDir[dir]
		if !ok {
			pkg = &domain.MapPackage{Dir: dir, ImportPath: importPathOf(module, dir), Imports: []string{}}
			byDir[dir] = pkg
			imports[dir] = map[string]bool{}
		}
		mf := domain.MapFile{Path: rel, Test: strings.HasSuffix(name, "_test.go"), Symbols: []domain.Symbol{}}
		f, perr := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if perr != nil {
			out.Diagnostics = append(out.Diagnostics, syntaxDiagnostic(rel, perr))
			pkg.Files = append(pkg.Files, mf)
			return nil
		}
		mf.Lines = fset.File(f.Pos()).LineCount()
		if pkg.Name == "" || (!mf.Test && strings.HasSuffix(pkg.Name, "_test")) {
			pkg.Name = f.Name.Name
		}
		for _, im := range f.Imports {
			if v, err := strconv.Unquote(im.Path.Value); err == nil {
				imports[dir][v] = true
			}
		}
		mf.Symbols = fileSymbols(fset, f)
		pkg.Files = append(pkg.Files, mf)
		return nil
	})
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "scan workspace: %v", err)
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		pkg := byDir[dir]
		for im := range imports[dir] {
			pkg.Imports = append(pkg.Imports, im)
		}
		slices.Sort(pkg.Imports)
		slices.SortFunc(pkg.Files, func(a, b domain.MapFile) int { return strings.Compare(a.Path, b.Path) })
		out.Packages = append(out.Packages, *pkg)
	}
	return out, nil
}

// importPathOf is the import path of the package in dir; the root package
// is the module itself.
func importPathOf(module, dir string) string {
	switch {
	case module == "":
		return dir
	case dir == ".":
		return module
	}
	return path.Join(module, dir)
}

// fileSymbols lists the top-level declarations of f in source order.
func fileSymbols(fset *token.FileSet, f *ast.File) []domain.Symbol {
	out := []domain.Symbol{}
	line := func(n ast.Node) int { return fset.Position(n.Pos()).Line }
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			kind, name := "func", d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				kind, name = "method", receiverName(d.Recv.List[0].Type)+"."+d.Name.Name
			}
			sig := *d
			sig.Body, sig.Doc = nil, nil
			out = append(out, domain.Symbol{Kind: kind, Name: name, Signature: oneLine(fset, &sig), Line: line(d)})
		case *ast.GenDecl:
			kind := map[token.Token]string{token.TYPE: "type", token.CONST: "const", token.VAR: "var"}[d.Tok]
			if kind == "" {
				continue
			}
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					out = append(out, domain.Symbol{Kind: kind, Name: s.Name.Name, Signature: "type " + typeHead(fset, s), Line: line(s)})
				case *ast.ValueSpec:
					c := *s
					c.Doc, c.Comment = nil, nil
					sig := kind + " " + oneLine(fset, &c)
					for _, n := range s.Names {
						out = append(out, domain.Symbol{Kind: kind, Name: n.Name, Signature: sig, Line: line(n)})
					}
				}
			}
		}
	}
	return out
}

// typeHead renders a type spec on one line: structs and interfaces as
// "T struct{…}" (their fields would not fit one line), others whole.
func typeHead(fset *token.FileSet, s *ast.TypeSpec) string {
	head := s.Name.Name
	if s.TypeParams != nil {
		params := oneLine(fset, &ast.FuncType{Params: s.TypeParams})
		head += "[" + strings.TrimSuffix(strings.TrimPrefix(params, "func("), ")") + "]"
	}
	if s.Assign.IsValid() {
		head += " ="
	}
	switch s.Type.(type) {
	case *ast.StructType:
		return head + " struct{…}"
	case *ast.InterfaceType:
		return head + " interface{…}"
	}
	return head + " " + oneLine(fset, s.Type)
}

// oneLine renders node with its whitespace runs collapsed to one space.
func oneLine(fset *token.FileSet, node any) string {
	p := &goPackage{fset: fset}
	s := strings.Join(strings.Fields(p.render(node)), " ")
	if len(s) > maxSignature {
		s = strings.ToValidUTF8(s[:maxSignature], "") + "…"
	}
	return s
}
