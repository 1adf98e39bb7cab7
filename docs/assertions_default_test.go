package docs_test

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toolchainGate is the call that skips a test unless the test binary was
// built with -tags e2e (internal/e2e).
const toolchainGate = "e2e.RequireToolchain"

// TestEveryAssertionRunsInTheDefaultSuite keeps `go test ./...` honest:
// every ASSERT id docs/assertions.md lists must be carried by at least one
// test that runs without -tags e2e, i.e. one neither in an e2e-tagged file
// nor calling, directly or through helpers, the toolchain gate. The
// real-toolchain versions stay behind the tag beside it.
func TestEveryAssertionRunsInTheDefaultSuite(t *testing.T) {
	root := moduleRoot(t)
	rows, err := parseTable(root + "/docs/assertions.md")
	require.NoError(t, err)
	idx, err := scanTests(os.DirFS(root))
	require.NoError(t, err)
	gated, err := scanGated(os.DirFS(root))
	require.NoError(t, err)
	require.NotEmpty(t, gated, "no test needs the toolchain: is the gate still %s?", toolchainGate)
	for _, problem := range checkDefaultSuite(rows, idx, gated) {
		t.Error(problem)
	}
}

// checkDefaultSuite lists the ids whose every carrying test needs the tag.
func checkDefaultSuite(rows []row, idx testIndex, gated map[string]bool) []string {
	var problems []string
	for _, r := range rows {
		carriers := idx.carried[r.id]
		if len(carriers) == 0 {
			continue // checkTable reports it
		}
		if !slices.ContainsFunc(carriers, func(c string) bool { return !gated[c] }) {
			problems = append(problems, fmt.Sprintf("%s (line %d): every test carrying it needs -tags e2e (%s); add one on value fakes",
				r.id, r.line, strings.Join(carriers, ", ")))
		}
	}
	return problems
}

// TestScanGatedFollowsHelpersAndTags proves the gate analysis: a test is
// gated by the e2e build tag, by calling the gate, or by calling a helper
// (of its own package or another) that does.
func TestScanGatedFollowsHelpersAndTags(t *testing.T) {
	src := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	fsys := fstest.MapFS{
		"go.mod":           src("module example.com/m\n"),
		"kit/kit.go":       src("package kit\n\nfunc Service(t T) { e2e.RequireToolchain(t) }\nfunc Plain() {}\n"),
		"a/a_test.go":      src("package a\n\nfunc TestDirect(t *testing.T) { e2e.RequireToolchain(t) }\nfunc TestViaKit(t *testing.T) { kit.Service(t) }\nfunc TestViaLocal(t *testing.T) { local(t) }\nfunc local(t *testing.T) { kit.Service(t) }\nfunc TestPlain(t *testing.T) { kit.Plain() }\n"),
		"a/tagged_test.go": src("//go:build e2e\n\npackage a\n\nfunc TestTagged(t *testing.T) {}\n"),
	}
	gated, err := scanGated(fsys)
	require.NoError(t, err)
	for _, name := range []string{"TestDirect", "TestViaKit", "TestViaLocal", "TestTagged"} {
		assert.True(t, gated[name], name)
	}
	assert.False(t, gated["TestPlain"])

	rows := []row{{id: "ASSERT-X-001", line: 1}, {id: "ASSERT-X-002", line: 2}}
	idx := testIndex{carried: map[string][]string{"ASSERT-X-001": {"TestDirect", "TestPlain"}, "ASSERT-X-002": {"TestTagged"}}}
	assert.Equal(t, []string{"ASSERT-X-002 (line 2): every test carrying it needs -tags e2e (TestTagged); add one on value fakes"},
		checkDefaultSuite(rows, idx, gated))
}

// goFile is one parsed Go file with its package name.
type goFile struct {
	pkg    string
	tagged bool
	file   *ast.File
}

// scanGated returns the names of the Test functions that do not run in
// plain `go test`: those in files the default build excludes and those
// that call toolchainGate, directly or through package-level functions
// (matched by package name and function name).
func scanGated(fsys fs.FS) (map[string]bool, error) {
	var files []goFile
	fset := token.NewFileSet()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && skipDir(fsys, p, d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		files = append(files, goFile{pkg: f.Name.Name, tagged: !defaultBuild(f), file: f})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan gated tests: %w", err)
	}
	// gates holds qualified names (pkg.Func) that lead to the gate; grow it
	// to a fixed point.
	gates := map[string]bool{toolchainGate: true}
	for changed := true; changed; {
		changed = false
		for _, gf := range files {
			for _, fn := range funcs(gf.file) {
				key := gf.pkg + "." + fn.Name.Name
				if !gates[key] && callsAny(gf.pkg, fn, gates) {
					gates[key], changed = true, true
				}
			}
		}
	}
	gated := map[string]bool{}
	for _, gf := range files {
		for _, fn := range funcs(gf.file) {
			if name := fn.Name.Name; strings.HasPrefix(name, "Test") && (gf.tagged || gates[gf.pkg+"."+name]) {
				gated[name] = true
			}
		}
	}
	return gated, nil
}

// funcs returns the package-level functions (no methods) of f.
func funcs(f *ast.File) []*ast.FuncDecl {
	var out []*ast.FuncDecl
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Body != nil {
			out = append(out, fn)
		}
	}
	return out
}

// callsAny reports whether fn's body calls one of names: pkg.F for a
// selector call, or F of its own package pkg.
func callsAny(pkg string, fn *ast.FuncDecl, names map[string]bool) bool {
	found := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		switch f := call.Fun.(type) {
		case *ast.Ident:
			found = names[pkg+"."+f.Name]
		case *ast.SelectorExpr:
			if x, ok := f.X.(*ast.Ident); ok {
				found = names[x.Name+"."+f.Sel.Name]
			}
		}
		return !found
	})
	return found
}

// defaultBuild reports whether plain `go test` compiles f: its //go:build
// line holds without the e2e tag, on this machine's OS and architecture.
func defaultBuild(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() > f.Package {
			break
		}
		for _, c := range cg.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return expr.Eval(func(tag string) bool {
				return tag == runtime.GOOS || tag == runtime.GOARCH || tag == "unix" || tag == "gc" || strings.HasPrefix(tag, "go1.")
			})
		}
	}
	return true
}
