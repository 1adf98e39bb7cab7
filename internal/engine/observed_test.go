package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFunctionsTakeOnlyThePhaseStateTheyUse keeps observed split by
// phase: a function that takes the whole *observed must use more than
// the wake-up facts (its label plan or its commands) or hand the whole
// value on; one that only reads or writes wake-up facts takes *wakeFacts.
func TestFunctionsTakeOnlyThePhaseStateTheyUse(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	checked := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := observedParam(fn)
			if name == "" {
				continue
			}
			checked++
			assert.True(t, usesMoreThanWakeFacts(fn.Body, name), "%s: %s takes *observed but uses only wake-up facts; give it *wakeFacts",
				fset.Position(fn.Pos()), fn.Name.Name)
		}
	}
	assert.Positive(t, checked, "the check saw the functions that take *observed")
}

// observedParam returns the name of fn's *observed parameter, "" if none.
func observedParam(fn *ast.FuncDecl) string {
	for _, field := range fn.Type.Params.List {
		star, ok := field.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if id, ok := star.X.(*ast.Ident); ok && id.Name == "observed" && len(field.Names) == 1 {
			return field.Names[0].Name
		}
	}
	return ""
}

// usesMoreThanWakeFacts reports whether body selects o.labels or o.cmd,
// or passes o itself (not a part of it) to a call.
func usesMoreThanWakeFacts(body *ast.BlockStmt, o string) bool {
	more := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == o && (n.Sel.Name == "labels" || n.Sel.Name == "cmd") {
				more = true
			}
		case *ast.CallExpr:
			for _, arg := range n.Args {
				if id, ok := arg.(*ast.Ident); ok && id.Name == o {
					more = true
				}
			}
		}
		return !more
	})
	return more
}

func TestUsesMoreThanWakeFacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body string
		want bool
	}{
		{"o.issue = x; o.snap.Stage = y", false},
		{"f(&o.wakeFacts)", false},
		{"o.labels.want = nil", true},
		{"o.cmd.handled = true", true},
		{"s.writeState(ctx, o)", true},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package x\nfunc g(o *observed) {"+tt.body+"}", 0)
			require.NoError(t, err)
			fn := f.Decls[0].(*ast.FuncDecl)
			require.Equal(t, "o", observedParam(fn))
			assert.Equal(t, tt.want, usesMoreThanWakeFacts(fn.Body, "o"))
		})
	}
}
