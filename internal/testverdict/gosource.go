package testverdict

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"slices"
	"strings"
)

// TestFuncs returns the top-level tests a Go test file declares: the
// functions `go test` runs as tests (TestXxx(*testing.T), FuzzXxx, which
// runs its seed corpus). It returns nil for a file that is not a _test.go
// file, does not parse, or carries a build constraint (it may
// legitimately not run here).
func TestFuncs(file, content string) []Decl {
	decls, _ := testFuncs(file, content)
	return decls
}

// RewrittenTests returns the tests file declares after the change (now)
// whose declaration is new or differs from the one before (old): the
// tests the change itself wrote.
func RewrittenTests(file, old, now string) []Decl {
	_, before := testFuncs(file, old)
	decls, after := testFuncs(file, now)
	var out []Decl
	for _, d := range decls {
		if src, ok := before[d.Name]; !ok || src != after[d.Name] {
			out = append(out, d)
		}
	}
	return out
}

// testFuncs is TestFuncs with each test's declaration source.
func testFuncs(file, content string) ([]Decl, map[string]string) {
	if !strings.HasSuffix(file, "_test.go") {
		return nil, nil
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, content, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return nil, nil
	}
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") || strings.HasPrefix(c.Text, "// +build") {
				return nil, nil
			}
		}
	}
	dir := path.Dir(file)
	var out []Decl
	src := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || fn.Type.Params == nil || len(fn.Type.Params.List) != 1 {
			continue
		}
		if isTestName(fn.Name.Name, "Test") && paramIs(fn, "T") || isTestName(fn.Name.Name, "Fuzz") && paramIs(fn, "F") {
			out = append(out, Decl{Dir: dir, Name: fn.Name.Name})
			src[fn.Name.Name] = content[fset.Position(fn.Pos()).Offset:fset.Position(fn.End()).Offset]
		}
	}
	return out, src
}

// isTestName applies go test's rule: prefix, then nothing or a character
// that is not a lower-case letter.
func isTestName(name, prefix string) bool {
	if !strings.HasPrefix(name, prefix) || name == "TestMain" {
		return false
	}
	rest := name[len(prefix):]
	return rest == "" || rest[0] < 'a' || rest[0] > 'z'
}

// paramIs reports whether fn's one parameter is *testing.<typ> (or
// *<typ> under a dot import).
func paramIs(fn *ast.FuncDecl, typ string) bool {
	star, ok := fn.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := star.X.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == typ
	case *ast.Ident:
		return x.Name == typ
	}
	return false
}

// plannedName matches a Go test function name in free text.
var plannedName = regexp.MustCompile(`\b(?:Test|Fuzz)(?:[A-Z0-9_][A-Za-z0-9_]*)?\b`)

// PlannedTests returns the top-level test names a plan's free-text test
// notes mention ("TestAdd and TestAdd/overflow" gives TestAdd), sorted.
// A plan that names none gives nil.
func PlannedTests(text string) []string {
	var out []string
	for _, m := range plannedName.FindAllString(text, -1) {
		if m == "Test" || m == "Fuzz" || m == "TestMain" {
			continue
		}
		out = append(out, m)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
