package codegen_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoOnlyServiceChoiceAndSimulateSkipAreGone: the two Go-only code
// paths issue 27 found stay gone, wherever the code moves. (1) No
// production code chooses the domain service by asking which covers
// ".go" (wire.go's set.Resolve([]string{".go"}), which never chose a
// Python service). (2) Every simulate of code generation names the
// change's paths beside its Go packages (the goPackages path simulated
// only directories holding .go files and skipped the run when there were
// none). The behaviour itself is tested end to end by
// TestExternalPythonServiceIsChosenAndRunsItsTests and
// TestPythonChangeIsTestedByThePythonService.
func TestGoOnlyServiceChoiceAndSimulateSkipAreGone(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the module root")
	var resolves, params int
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		codegen := filepath.ToSlash(filepath.Dir(p)) == filepath.ToSlash(filepath.Join(root, "stages", "codegen"))
		if !bytes.Contains(src, []byte("Resolve(")) && !codegen {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Resolve" && len(n.Args) == 1 {
					resolves++
					assert.False(t, namesGo(n.Args[0]), "%s: the service is chosen by the .go type, not by each path (domain.Router)", rel)
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); codegen && ok && sel.Sel.Name == "SimulateParams" {
					params++
					assert.True(t, hasField(n, "Paths"), "%s: a simulate of code generation names no paths: only Go packages would be tested", rel)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Positive(t, resolves, "the scan saw the Resolve calls it guards")
	assert.Positive(t, params, "the scan saw code generation's simulate params")
}

// namesGo reports whether e is a literal list holding ".go".
func namesGo(e ast.Expr) bool {
	lit, ok := e.(*ast.CompositeLit)
	if !ok {
		return false
	}
	for _, el := range lit.Elts {
		if b, ok := el.(*ast.BasicLit); ok && b.Kind == token.STRING {
			if s, err := strconv.Unquote(b.Value); err == nil && s == ".go" {
				return true
			}
		}
	}
	return false
}

// hasField reports whether a keyed composite literal sets field.
func hasField(lit *ast.CompositeLit, field string) bool {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == field {
				return true
			}
		}
	}
	return false
}
