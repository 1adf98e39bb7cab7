package testverdict

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

func TestRunOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		reported domain.TestResult
		declared Decl
		want     bool
	}{
		{"go: same name in the package's directory", domain.TestResult{Package: "example.com/m/calc", Name: "TestAdd"}, Decl{Dir: "calc", Name: "TestAdd"}, true},
		{"go: a longer name is another test", domain.TestResult{Package: "example.com/m/calc", Name: "TestAddAll"}, Decl{Dir: "calc", Name: "TestAdd"}, false},
		{"go: a subtest is not the declaration", domain.TestResult{Package: "example.com/m/calc", Name: "TestAdd/neg"}, Decl{Dir: "calc", Name: "TestAdd"}, false},
		{"python: file and function", domain.TestResult{Package: "tests/test_calc.py", Name: "test_add"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, true},
		{"python: a parameter set", domain.TestResult{Package: "tests/test_calc.py", Name: "test_add[1-2]"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, true},
		{"python: a longer name is another test", domain.TestResult{Package: "tests/test_calc.py", Name: "test_add_all"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, false},
		{"python: reported by dotted class name", domain.TestResult{Package: "tests.test_calc.TestCalc", Name: "test_add"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, true},
		{"python: reported from another rootdir", domain.TestResult{Package: "test_calc", Name: "test_add"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, true},
		{"python: another file", domain.TestResult{Package: "tests/test_io.py", Name: "test_add"}, Decl{Dir: "tests/test_calc.py", Name: "test_add"}, false},
		{"typescript: vitest title path", domain.TestResult{Package: "web/src/cart.test.ts", Name: "cart > totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, true},
		{"typescript: jest-junit title path", domain.TestResult{Package: "web/src/cart.test.ts", Name: "cart totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, true},
		{"typescript: file relative to the sub-project", domain.TestResult{Package: "src/cart.test.ts", Name: "cart > totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, true},
		{"typescript: node --test names the title, classname test", domain.TestResult{Package: "test", Name: "totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, true},
		{"typescript: node --test, top level", domain.TestResult{Package: "test", Name: "joins words"}, Decl{Dir: "src/slug.test.ts", Name: "joins words"}, true},
		{"typescript: jest classname of describe titles", domain.TestResult{Package: "cart totals", Name: "cart totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, true},
		{"typescript: another title", domain.TestResult{Package: "test", Name: "empties"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, false},
		{"typescript: another file", domain.TestResult{Package: "web/src/order.test.ts", Name: "cart > totals"}, Decl{Dir: "web/src/cart.test.ts", Name: "cart > totals"}, false},
		{"go: a bare module root is still not another directory", domain.TestResult{Package: "calc", Name: "TestAdd"}, Decl{Dir: "sub", Name: "TestAdd"}, false},
		{"rust: module path", domain.TestResult{Package: "calc", Name: "tests::adds"}, Decl{Name: "tests::adds"}, true},
		{"rust: crate-relative path differs", domain.TestResult{Package: "calc", Name: "adds"}, Decl{Name: "tests::adds"}, true},
		{"rust: another function", domain.TestResult{Package: "calc", Name: "tests::adds_more"}, Decl{Name: "tests::adds"}, false},
		{"java: class and method", domain.TestResult{Package: "com.acme.CartTest", Name: "total"}, Decl{Dir: "com.acme.CartTest", Name: "total"}, true},
		{"java: JUnit 5 parameters", domain.TestResult{Package: "com.acme.CartTest", Name: "total(int)[1]"}, Decl{Dir: "com.acme.CartTest", Name: "total"}, true},
		{"java: another class", domain.TestResult{Package: "com.acme.OrderTest", Name: "total"}, Decl{Dir: "com.acme.CartTest", Name: "total"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, runOf(tt.reported, tt.declared))
		})
	}
}

func TestGoDeclarationsCarryLines(t *testing.T) {
	t.Parallel()
	src := "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Log(1)\n}\n\nfunc TestSub(t *testing.T) {}\n"
	assert.Equal(t, []domain.TestDeclaration{
		{File: "calc/x_test.go", Name: "TestAdd", Package: "calc", Line: 5, EndLine: 7},
		{File: "calc/x_test.go", Name: "TestSub", Package: "calc", Line: 9, EndLine: 9},
	}, GoDeclarations("calc/x_test.go", src))
}

func TestRewrittenDecls(t *testing.T) {
	t.Parallel()
	old := "def test_keep():\n    assert 1\n\ndef test_edit():\n    assert 2\n"
	now := "import os\n\ndef test_keep():\n    assert 1\n\ndef test_edit():\n    assert 3\n\ndef test_new():\n    pass\n"
	f := "tests/test_x.py"
	before := []domain.TestDeclaration{{File: f, Name: "test_keep", Package: f, Line: 1, EndLine: 2}, {File: f, Name: "test_edit", Package: f, Line: 4, EndLine: 5}}
	after := []domain.TestDeclaration{{File: f, Name: "test_keep", Package: f, Line: 3, EndLine: 4}, {File: f, Name: "test_edit", Package: f, Line: 6, EndLine: 7},
		{File: f, Name: "test_new", Package: f, Line: 9, EndLine: 10}}
	assert.Equal(t, []Decl{{Dir: f, Name: "test_edit"}, {Dir: f, Name: "test_new"}}, RewrittenDecls(before, old, after, now),
		"a test that only moved is not rewritten")
	assert.Equal(t, []Decl{{Dir: f, Name: "test_keep"}}, RewrittenDecls(nil, "", after[:1], now), "a new file: every test is the change's")
}

// The command service names a failing test "<file>::<name> failed:"; a
// failing Python test is a failing test, not a run broken by something
// else (which no base run could excuse).
func TestFailingCommandServiceTestIsNotBroken(t *testing.T) {
	t.Parallel()
	head := domain.SimulateResult{ExitCode: 1, Tests: []domain.TestResult{
		{Name: "test_add", Package: "tests/test_calc.py", Passed: false}, {Name: "test_sub", Package: "tests/test_calc.py", Passed: true}},
		Diagnostics: []domain.Diagnostic{{Severity: domain.SeverityBlocking, Category: domain.CategoryTestFailure, Message: "tests/test_calc.py::test_add failed:\nassert 3 == 4"}}}
	base := head
	v := Judge(Input{Head: head, Base: &base})
	assert.False(t, v.Broken)
	assert.True(t, v.Passed, "the failure is pre-existing: %q", v.Problems)
}
