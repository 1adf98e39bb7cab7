package goservice

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/extserver"
)

// ContractDirective binds the constant declared directly below it to an
// interface registry parameter.
const ContractDirective = "//cogworks:contract"

// extractInterfaces lists exported declarations and the values of constants
// bound by //cogworks:contract directives.
func (s *service) extractInterfaces(_ context.Context, req domain.Request) (any, error) {
	ws, err := prepareWorkspace(req)
	if err != nil {
		return nil, err
	}
	defer ws.Remove()
	pkgs, err := parsePackages(ws)
	if err != nil {
		return nil, extserver.Errorf(domain.CodeInternalError, "scan workspace: %v", err)
	}
	out := domain.ExtractResult{Declarations: []domain.Declaration{}, Values: []domain.ContractValue{}}
	module := ws.modulePath()
	dirs := make([]string, 0, len(pkgs))
	for d := range pkgs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		p := pkgs[dir]
		importPath := path.Join(module, dir)
		if module == "" {
			importPath = dir
		}
		p.extract(importPath, &out)
	}
	return out, nil
}

// parsedFile is one non-test Go file of a package.
type parsedFile struct {
	rel  string
	file *ast.File
}

// goPackage is the parsed non-test files of one directory.
type goPackage struct {
	fset   *token.FileSet
	files  []parsedFile
	consts *constEvaluator
	diags  []domain.Diagnostic
}

// parsePackages parses every non-test .go file outside testdata, vendor and
// hidden directories, grouped by repository-relative directory. Files that
// do not parse are reported as syntax_error diagnostics.
func parsePackages(ws *workspace) (map[string]*goPackage, error) {
	fset := token.NewFileSet()
	pkgs := map[string]*goPackage{}
	err := ws.walkDir(func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != ws.dir && goIgnoredDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel := ws.relPath(p)
		dir := path.Dir(rel)
		pkg, ok := pkgs[dir]
		if !ok {
			pkg = &goPackage{fset: fset, consts: newConstEvaluator()}
			pkgs[dir] = pkg
		}
		f, perr := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if perr != nil {
			pkg.diags = append(pkg.diags, syntaxDiagnostic(rel, perr))
			return nil
		}
		pkg.files = append(pkg.files, parsedFile{rel: rel, file: f})
		pkg.consts.addFile(f)
		return nil
	})
	return pkgs, err
}

// extract appends the package's exported declarations and contract values.
func (p *goPackage) extract(importPath string, out *domain.ExtractResult) {
	out.Diagnostics = append(out.Diagnostics, p.diags...)
	for _, pf := range p.files {
		for _, decl := range pf.file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				p.funcDecl(importPath, pf.rel, d, out)
			case *ast.GenDecl:
				p.genDecl(importPath, pf.rel, d, out)
			}
		}
	}
}

func (p *goPackage) funcDecl(importPath, rel string, d *ast.FuncDecl, out *domain.ExtractResult) {
	if !d.Name.IsExported() {
		return
	}
	kind, name := "func", d.Name.Name
	if d.Recv != nil && len(d.Recv.List) > 0 {
		recv := receiverName(d.Recv.List[0].Type)
		if !ast.IsExported(recv) {
			return
		}
		kind, name = "method", recv+"."+d.Name.Name
	}
	sig := *d
	sig.Body, sig.Doc = nil, nil
	out.Declarations = append(out.Declarations, domain.Declaration{
		Kind: kind, Name: name, Package: importPath, Signature: p.render(&sig),
		File: rel, Line: p.fset.Position(d.Pos()).Line,
	})
}

func receiverName(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return ""
}

func (p *goPackage) genDecl(importPath, rel string, d *ast.GenDecl, out *domain.ExtractResult) {
	kind := map[token.Token]string{token.TYPE: "type", token.CONST: "const", token.VAR: "var"}[d.Tok]
	if kind == "" {
		return
	}
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			c := *s
			c.Doc, c.Comment = nil, nil
			out.Declarations = append(out.Declarations, domain.Declaration{
				Kind: kind, Name: s.Name.Name, Package: importPath, Signature: "type " + p.render(&c),
				File: rel, Line: p.fset.Position(s.Pos()).Line,
			})
		case *ast.ValueSpec:
			c := *s
			c.Doc, c.Comment = nil, nil
			for _, n := range s.Names {
				if !n.IsExported() {
					continue
				}
				out.Declarations = append(out.Declarations, domain.Declaration{
					Kind: kind, Name: n.Name, Package: importPath, Signature: kind + " " + p.render(&c),
					File: rel, Line: p.fset.Position(n.Pos()).Line,
				})
			}
			if d.Tok == token.CONST {
				doc := s.Doc
				if doc == nil && len(d.Specs) == 1 && !d.Lparen.IsValid() {
					doc = d.Doc
				}
				p.contractValues(rel, s, doc, out)
			}
		}
	}
}

// contractValues reports the value of a constant bound by directives in doc.
func (p *goPackage) contractValues(rel string, s *ast.ValueSpec, doc *ast.CommentGroup, out *domain.ExtractResult) {
	if doc == nil {
		return
	}
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, ContractDirective)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		pos := p.fset.Position(c.Pos())
		loc := domain.Location{File: rel, Line: pos.Line, Column: pos.Column}
		fields := strings.Fields(rest)
		if len(fields) != 2 {
			out.Diagnostics = append(out.Diagnostics, warn(rel, loc, "directive %q must be %s <INTERFACE-ID> <parameter>", c.Text, ContractDirective))
			continue
		}
		if len(s.Names) != 1 {
			out.Diagnostics = append(out.Diagnostics, warn(rel, loc, "directive %q must precede a declaration of exactly one constant", c.Text))
			continue
		}
		name := s.Names[0]
		namePos := p.fset.Position(name.Pos())
		v, err := p.consts.valueOf(name.Name)
		if err != nil {
			out.Diagnostics = append(out.Diagnostics, warn(rel, loc, "constant %s bound to %s %s: %v", name.Name, fields[0], fields[1], err))
			continue
		}
		out.Values = append(out.Values, domain.ContractValue{
			Interface: fields[0], Parameter: fields[1], Value: v, Artifact: rel,
			Location: domain.Location{File: rel, Line: namePos.Line, Column: namePos.Column},
		})
	}
}

func warn(rel string, loc domain.Location, format string, args ...any) domain.Diagnostic {
	return domain.Diagnostic{
		Artifact: rel, Location: loc, Severity: domain.SeverityWarning,
		Category: domain.CategoryCompleteness, Message: fmt.Sprintf(format, args...),
	}
}

func (p *goPackage) render(node any) string {
	var b bytes.Buffer
	if err := printer.Fprint(&b, p.fset, node); err != nil {
		return ""
	}
	return b.String()
}
