package stages

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const pipelinePkg = "github.com/cogworks/cogworks/pipeline"

// snapshotWriters are the methods of pipeline.Snapshot that write it: the
// engine's (Apply, EnterSWI, LeaveSWI, AddAttempt, RecordRevision).
var snapshotWriters = map[string]bool{"Apply": true, "EnterSWI": true, "LeaveSWI": true, "AddAttempt": true, "RecordRevision": true}

// guardExempt are the files under stages/ the guard skips, with why.
var guardExempt = map[string]string{
	// stagetest builds the snapshots the stage tests start from and
	// applies results as the engine does (stagetest.Execute).
	"stagetest": "test fixtures",
}

// TestExecutorsDoNotWriteTheSnapshot: the stage executors decide and the
// engine writes (issue 26). No non-test file of a stage package assigns to
// anything reached through a pipeline.Snapshot or a *pipeline.SWI (a
// pointer into one) or an element of its sub-work-item list, or calls a
// writing method of the snapshot: a stage's decisions leave it only as
// engine.StageResult.Changes. A local copy of a record (a pipeline.SWI
// value) is the stage's own. The check type-checks each package against
// the export data `go list` names, so an alias (x := in.Snapshot) does not
// hide a write; a new stage package is checked as soon as it exists.
func TestExecutorsDoNotWriteTheSnapshot(t *testing.T) {
	t.Parallel() // go list -export and type-checking: the package's slowest test
	exports := exportData(t)
	dirs := []string{"."}
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" && guardExempt[e.Name()] == "" {
			dirs = append(dirs, e.Name())
		}
	}
	checked := 0
	for _, dir := range dirs {
		writes := snapshotWrites(t, dir, exports)
		assert.Empty(t, writes, "stages/%s writes the snapshot; return a pipeline.Change in StageResult.Changes instead", dir)
		checked++
	}
	assert.GreaterOrEqual(t, checked, 10, "stages itself, the eight stages, revision and stagekit")

	// The positive control: the check sees the writes it forbids.
	control := snapshotWritesIn(t, "control", map[string]string{"c.go": `package control

import "github.com/cogworks/cogworks/pipeline"

type run struct{ snap *pipeline.Snapshot }

func write(in *pipeline.Snapshot, r run, v pipeline.Snapshot) {
	snap := in
	snap.CurrentSWI = "x"
	rec := snap.SubWorkItem("a")
	rec.PR = 1
	in.SubWorkItems[0].Status = pipeline.SWICompleted
	r.snap.Artifacts.SpecPR++
	v.SubWorkItems[0].Branch = "b"
	_ = in.Apply()
	local := *in.SubWorkItem("a")
	local.PR = 2 // a copy: allowed
}
`}, exports)
	assert.Len(t, control, 6, "every write of the control is found: %v", control)
}

// exportData maps import paths to their compiled export data.
func exportData(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}={{.Export}}{{end}}", "./...").Output()
	require.NoError(t, err, "go list -export")
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p, file, ok := strings.Cut(sc.Text(), "="); ok {
			m[p] = file
		}
	}
	return m
}

// snapshotWrites type-checks the non-test files of dir and returns their
// writes of the snapshot.
func snapshotWrites(t *testing.T, dir string, exports map[string]string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	src := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src[f] = string(b)
	}
	if len(src) == 0 {
		return nil
	}
	return snapshotWritesIn(t, dir, src, exports)
}

func snapshotWritesIn(t *testing.T, name string, src map[string]string, exports map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var parsed []*ast.File
	for f, s := range src {
		af, err := parser.ParseFile(fset, f, s, 0)
		require.NoError(t, err)
		parsed = append(parsed, af)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})}
	_, err := conf.Check(name, fset, parsed, info)
	require.NoError(t, err, "type-check %s", name)

	var writes []string
	report := func(n ast.Node, what string) {
		writes = append(writes, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), what))
	}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					return true
				}
				for _, lhs := range n.Lhs {
					if reachesSnapshot(info, lhs) {
						report(n, "assigns "+types.ExprString(lhs))
					}
				}
			case *ast.IncDecStmt:
				if reachesSnapshot(info, n.X) {
					report(n, "changes "+types.ExprString(n.X))
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && snapshotWriters[sel.Sel.Name] && isSnapshot(info.Types[sel.X].Type) {
					report(n, "calls "+types.ExprString(n.Fun))
				}
			}
			return true
		})
	}
	return writes
}

// reachesSnapshot reports whether writing e writes state a snapshot
// holds: e's operand chain (selectors, indexes, dereferences) passes
// through a pipeline.Snapshot, a *pipeline.SWI or a []pipeline.SWI.
func reachesSnapshot(info *types.Info, e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		default:
			return false
		}
		typ := info.Types[e].Type
		if isSnapshot(typ) || isPipeline(typ, "SWI", true) || isSWISlice(typ) {
			return true
		}
	}
}

func isSnapshot(t types.Type) bool {
	return isPipeline(t, "Snapshot", false) || isPipeline(t, "Snapshot", true)
}

// isPipeline reports whether t is pipeline.<name> (ptr: *pipeline.<name>).
func isPipeline(t types.Type, name string, ptr bool) bool {
	if t == nil {
		return false
	}
	if ptr {
		p, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pipelinePkg
}

func isSWISlice(t types.Type) bool {
	s, ok := t.(*types.Slice)
	return ok && isPipeline(s.Elem(), "SWI", false)
}
