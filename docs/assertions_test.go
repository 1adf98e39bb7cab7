// Package docs_test keeps docs/assertions.md honest: the acceptance table must
// list every ASSERT id a test carries, every listed id must have such a test,
// and every test the table names must exist.
package docs_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// assertFuncName is the naming rule of docs/spec.md §17: TestAssert + area +
	// three digits, optionally followed by _Description.
	assertFuncName = regexp.MustCompile(`^TestAssert([A-Z]+)([0-9]{3})(?:_|$)`)
	// assertSubtest is a subtest (or table case) name that starts with the id.
	assertSubtest = regexp.MustCompile(`^ASSERT-([A-Z]+)-([0-9]{3})\b`)
	tableID       = regexp.MustCompile(`^ASSERT-[A-Z]+-[0-9]{3}$`)
	testName      = regexp.MustCompile(`\bTest[A-Za-z0-9_]*`)
)

// row is one line of the assertions table.
type row struct {
	id    string
	tests []string
	line  int
}

// testIndex is what the repository's tests say: every top-level test function
// (name → files) and, per ASSERT id, the tests that carry it in their name or
// in a subtest name.
type testIndex struct {
	funcs   map[string][]string
	carried map[string][]string
}

func TestAssertionsTableMatchesTests(t *testing.T) {
	root := moduleRoot(t)
	rows, err := parseTable(filepath.Join(root, "docs", "assertions.md"))
	require.NoError(t, err)
	require.NotEmpty(t, rows, "docs/assertions.md has no ASSERT rows")

	idx, err := scanTests(os.DirFS(root))
	require.NoError(t, err)
	require.NotEmpty(t, idx.carried, "no TestAssert… function found: is the module root right?")

	for _, problem := range checkTable(rows, idx) {
		t.Error(problem)
	}
}

// TestCheckTableReportsEveryKindOfDrift proves each rule fires: without it a
// checker that returned nothing would pass the real table.
func TestCheckTableReportsEveryKindOfDrift(t *testing.T) {
	idx := testIndex{
		funcs: map[string][]string{
			"TestAssertPSM001_Fresh":     {"engine/a_test.go"},
			"TestAssertPSM001_Again":     {"stages/b_test.go"},
			"TestLockPolicy":             {"pipeline/c_test.go"},
			"TestAssertPLAN002_Cycle":    {"planner/d_test.go"},
			"TestTableWithAssertSubtest": {"engine/e_test.go"},
		},
		carried: map[string][]string{
			"ASSERT-PSM-001":  {"TestAssertPSM001_Again", "TestAssertPSM001_Fresh"},
			"ASSERT-PLAN-002": {"TestAssertPLAN002_Cycle"},
			"ASSERT-PSM-005":  {"TestTableWithAssertSubtest"},
		},
	}
	full := []row{
		{id: "ASSERT-PSM-001", tests: []string{"TestAssertPSM001_Fresh", "TestAssertPSM001_Again"}, line: 1},
		{id: "ASSERT-PLAN-002", tests: []string{"TestAssertPLAN002_Cycle"}, line: 2},
		{id: "ASSERT-PSM-005", tests: []string{"TestTableWithAssertSubtest", "TestLockPolicy"}, line: 3},
	}
	tests := []struct {
		name string
		rows []row
		want []string
	}{
		{name: "honest table", rows: full},
		{
			name: "id carried by a test but missing from the table",
			rows: full[:2],
			want: []string{"ASSERT-PSM-005 is carried by TestTableWithAssertSubtest but missing"},
		},
		{
			name: "a test carrying the id is not listed in its row",
			rows: []row{{id: "ASSERT-PSM-001", tests: []string{"TestAssertPSM001_Fresh"}, line: 1}, full[1], full[2]},
			want: []string{"ASSERT-PSM-001 (line 1) does not list TestAssertPSM001_Again"},
		},
		{
			name: "table id without any test carrying it",
			rows: append(append([]row{}, full...), row{id: "ASSERT-EXT-009", tests: []string{"TestLockPolicy"}, line: 4}),
			want: []string{"ASSERT-EXT-009 (line 4): no test carries it"},
		},
		{
			name: "table names a test that does not exist",
			rows: []row{full[0], {id: "ASSERT-PLAN-002", tests: []string{"TestAssertPLAN002_Cycle", "TestGone"}, line: 2}, full[2]},
			want: []string{"ASSERT-PLAN-002 (line 2) names TestGone, which no *_test.go declares"},
		},
		{
			name: "row without tests",
			rows: []row{full[0], {id: "ASSERT-PLAN-002", line: 2}, full[2]},
			want: []string{"ASSERT-PLAN-002 (line 2) names no test", "ASSERT-PLAN-002 (line 2) does not list TestAssertPLAN002_Cycle"},
		},
		{
			name: "duplicate row",
			rows: append(append([]row{}, full...), row{id: "ASSERT-PSM-001", tests: []string{"TestAssertPSM001_Fresh", "TestAssertPSM001_Again"}, line: 9}),
			want: []string{"ASSERT-PSM-001 (line 9) repeats line 1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkTable(tt.rows, idx)
			require.Len(t, got, len(tt.want), "%q", got)
			for i, w := range tt.want {
				assert.Contains(t, got[i], w)
			}
		})
	}
}

func TestScanTestsFindsNamesSubtestsAndSkipsIgnoredDirs(t *testing.T) {
	src := func(body string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(body)} }
	fsys := fstest.MapFS{
		"go.mod": src("module example.com/m\n"),
		"engine/engine_test.go": src(`package engine
func TestAssertPSM005_LockBacksOff(t *testing.T) {}
func TestLockTable(t *testing.T) {
	for _, tc := range []struct{ name string }{{name: "ASSERT-PSM-007 status on entry"}} { _ = tc }
	t.Run("ASSERT-IDEM-003 repeat", func(t *testing.T) { t.Log("ASSERT-XVAL-001 in a message is no name") })
	_ = map[string]string{"ASSERT-XVAL-002": "a map key is no name either"}
}
func helper() {}
func (s suite) TestMethod() {}
`),
		"engine/engine.go":          src("package engine\nfunc TestAssertEXT001_NotATestFile() {}\n"),
		"engine/testdata/x_test.go": src("package x\nfunc TestAssertEXT002_InTestdata(t *testing.T) {}\n"),
		".hidden/y_test.go":         src("package y\nfunc TestAssertEXT003_Hidden(t *testing.T) {}\n"),
		"nested/go.mod":             src("module example.com/nested\n"),
		"nested/z_test.go":          src("package z\nfunc TestAssertEXT004_NestedModule(t *testing.T) {}\n"),
		"planner/planner_test.go":   src("package planner\nfunc TestAssertPLAN002(t *testing.T) {}\nfunc TestAssertPLANX_NoDigits(t *testing.T) {}\n"),
	}
	idx, err := scanTests(fsys)
	require.NoError(t, err)

	assert.Equal(t, map[string][]string{
		"ASSERT-PSM-005":  {"TestAssertPSM005_LockBacksOff"},
		"ASSERT-PSM-007":  {"TestLockTable"},
		"ASSERT-IDEM-003": {"TestLockTable"},
		"ASSERT-PLAN-002": {"TestAssertPLAN002"},
	}, idx.carried)
	assert.Equal(t, []string{"engine/engine_test.go"}, idx.funcs["TestLockTable"])
	assert.Contains(t, idx.funcs, "TestAssertPLANX_NoDigits")
	for _, absent := range []string{"helper", "TestMethod", "TestAssertEXT001_NotATestFile", "TestAssertEXT002_InTestdata",
		"TestAssertEXT003_Hidden", "TestAssertEXT004_NestedModule"} {
		assert.NotContains(t, idx.funcs, absent)
	}
}

func TestParseTableReadsRows(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join([]string{
		"# Assertions",
		"| id | meaning | tests |",
		"|---|---|---|",
		"| ASSERT-PSM-001 | a fresh item enters intake; see TestNotAName in prose | `TestAssertPSM001_Fresh` (engine), `TestAssertPSM001_Again` (stages) |",
		"| [ASSERT-PLAN-002](#x) | a cycle is reported |  |",
		"",
		"Prose mentioning ASSERT-PSM-001 outside the table is ignored.",
	}, "\n")), 0o600))

	rows, err := parseTable(p)
	require.NoError(t, err)
	assert.Equal(t, []row{
		{id: "ASSERT-PSM-001", tests: []string{"TestAssertPSM001_Fresh", "TestAssertPSM001_Again"}, line: 4},
		{id: "ASSERT-PLAN-002", line: 5},
	}, rows)

	require.NoError(t, os.WriteFile(p, []byte("| ASSERT-PSM-1 | too short | `TestX` |\n"), 0o600))
	_, err = parseTable(p)
	require.ErrorContains(t, err, `line 1: "ASSERT-PSM-1" is not an ASSERT id`)

	_, err = parseTable(filepath.Join(dir, "missing.md"))
	require.Error(t, err)
}

// checkTable lists every disagreement between the table and the tests, in
// table order and then by id.
func checkTable(rows []row, idx testIndex) []string {
	var problems []string
	seen := map[string]int{}
	for _, r := range rows {
		if first, dup := seen[r.id]; dup {
			problems = append(problems, fmt.Sprintf("%s (line %d) repeats line %d", r.id, r.line, first))
			continue
		}
		seen[r.id] = r.line
		if len(r.tests) == 0 {
			problems = append(problems, fmt.Sprintf("%s (line %d) names no test", r.id, r.line))
		}
		for _, name := range r.tests {
			if _, ok := idx.funcs[name]; !ok {
				problems = append(problems, fmt.Sprintf("%s (line %d) names %s, which no *_test.go declares", r.id, r.line, name))
			}
		}
		carriers := idx.carried[r.id]
		if len(carriers) == 0 {
			problems = append(problems, fmt.Sprintf("%s (line %d): no test carries it (TestAssert<AREA><NNN>_… or a subtest named %q)", r.id, r.line, r.id+" …"))
		}
		for _, c := range carriers {
			if !slices.Contains(r.tests, c) {
				problems = append(problems, fmt.Sprintf("%s (line %d) does not list %s, which carries the id", r.id, r.line, c))
			}
		}
	}
	ids := make([]string, 0, len(idx.carried))
	for id := range idx.carried {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if _, ok := seen[id]; !ok {
			problems = append(problems, fmt.Sprintf("%s is carried by %s but missing from docs/assertions.md", id, strings.Join(idx.carried[id], ", ")))
		}
	}
	return problems
}

// parseTable reads the rows of path whose first cell is an ASSERT id; the
// tests are every Test… identifier in the last cell.
func parseTable(path string) ([]row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read assertions table: %w", err)
	}
	var rows []row
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		first := strings.Trim(strings.TrimSpace(cells[0]), "`*")
		if strings.HasPrefix(first, "[") { // a linked id: [ASSERT-X-001](#anchor)
			first = strings.TrimPrefix(strings.SplitN(first, "]", 2)[0], "[")
		}
		if !strings.HasPrefix(first, "ASSERT-") {
			continue
		}
		if !tableID.MatchString(first) {
			return nil, fmt.Errorf("%s line %d: %q is not an ASSERT id (ASSERT-AREA-NNN)", path, i+1, first)
		}
		r := row{id: first, line: i + 1}
		if len(cells) > 2 {
			r.tests = testName.FindAllString(cells[len(cells)-1], -1)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// scanTests parses every *_test.go the go command would see from the root of
// fsys: directories named testdata or starting with "." or "_" are skipped,
// and so are nested modules.
func scanTests(fsys fs.FS) (testIndex, error) {
	idx := testIndex{funcs: map[string][]string{}, carried: map[string][]string{}}
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
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read %s: %w", p, err)
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", p, err)
		}
		indexFile(&idx, p, f)
		return nil
	})
	if err != nil {
		return testIndex{}, fmt.Errorf("scan tests: %w", err)
	}
	for id := range idx.carried {
		sort.Strings(idx.carried[id])
	}
	return idx, nil
}

// indexFile records the top-level Test functions of f and the ids they
// carry: in their name, or at the start of a subtest's name.
func indexFile(idx *testIndex, file string, f *ast.File) {
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
			continue
		}
		name := fn.Name.Name
		idx.funcs[name] = append(idx.funcs[name], file)
		ids := map[string]bool{}
		if m := assertFuncName.FindStringSubmatch(name); m != nil {
			ids["ASSERT-"+m[1]+"-"+m[2]] = true
		}
		if fn.Body != nil {
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if s, ok := subtestName(n); ok {
					if m := assertSubtest.FindStringSubmatch(s); m != nil {
						ids["ASSERT-"+m[1]+"-"+m[2]] = true
					}
				}
				return true
			})
		}
		for id := range ids {
			if !slices.Contains(idx.carried[id], name) {
				idx.carried[id] = append(idx.carried[id], name)
			}
		}
	}
}

// subtestName returns the string literal n gives as a subtest's name: the
// first argument of a Run call, or a `name:` field of a table case. Other
// strings that mention an id (messages, fixtures) are not names.
func subtestName(n ast.Node) (string, bool) {
	var lit ast.Expr
	switch n := n.(type) {
	case *ast.CallExpr:
		if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" && len(n.Args) > 0 {
			lit = n.Args[0]
		}
	case *ast.KeyValueExpr:
		if key, ok := n.Key.(*ast.Ident); ok && strings.EqualFold(key.Name, "name") {
			lit = n.Value
		}
	}
	b, ok := lit.(*ast.BasicLit)
	if !ok || b.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(b.Value)
	return s, err == nil
}

// skipDir reports whether the go command would ignore directory p (name
// is its base name) when matching ./...: testdata, vendor, names starting
// with "." or "_", and nested modules.
func skipDir(fsys fs.FS, p, name string) bool {
	if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return true
	}
	_, err := fs.Stat(fsys, path.Join(p, "go.mod"))
	return err == nil
}

// moduleRoot walks up from the test's working directory (docs/) to go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "no go.mod above the working directory")
		dir = parent
	}
}
