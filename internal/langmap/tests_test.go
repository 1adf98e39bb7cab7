package langmap

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

func TestTestsDeclared(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, src string
		want            []domain.TestDeclaration
	}{
		{name: "python functions, classes, decorators", path: "tests/test_calc.py", src: `import pytest
from calc import add

def test_add():
    assert add(1, 2) == 3

@pytest.mark.parametrize("a", [1, 2])
def test_param(a):
    s = """
def test_not_a_test():
"""
    assert a

@pytest.mark.skip
def test_never():
    pass

def helper():
    pass

class TestCalc:
    def test_method(self):
        assert True

    def not_a_test(self):
        pass

class Helper:
    def test_ignored(self):
        pass

class Legacy(unittest.TestCase):
    async def test_async(self):
        pass

def test_local_class():
    class TestLocal:
        def test_not_collected(self):
            pass
`, want: []domain.TestDeclaration{
			{Name: "test_add", Package: "tests/test_calc.py", Line: 4, EndLine: 5},
			{Name: "test_param", Package: "tests/test_calc.py", Line: 7, EndLine: 12},
			{Name: "test_method", Package: "tests/test_calc.py", Line: 22, EndLine: 23},
			{Name: "test_async", Package: "tests/test_calc.py", Line: 33, EndLine: 34},
			{Name: "test_local_class", Package: "tests/test_calc.py", Line: 36, EndLine: 39},
		}},
		{name: "python: not a test file", path: "src/calc/ops.py", src: "def test_x():\n    pass\n"},
		{name: "typescript: describe paths, skips, computed titles", path: "web/src/cart.test.ts", src: "import { describe, it, expect, test } from 'vitest'\n" +
			"describe('cart', () => {\n" +
			"  it('totals items', () => {\n" +
			"    expect(/a/.test('abc')).toBe(true)\n" +
			"  })\n" +
			"  it.skip('later', () => {})\n" +
			"  test.each([1, 2])('n %i', (n) => {})\n" +
			"  describe(`empty`, () => {\n" +
			"    test(\"is zero\", () => { expect(total([])).toBe(0) })\n" +
			"  })\n" +
			"})\n" +
			"test(`${name} works`, () => {})\n" +
			"test('top level', async () => {\n" +
			"  await run()\n" +
			"})\n",
			want: []domain.TestDeclaration{
				{Name: "cart > totals items", Package: "web/src/cart.test.ts", Line: 3, EndLine: 5},
				{Name: "cart > empty > is zero", Package: "web/src/cart.test.ts", Line: 9, EndLine: 9},
				{Name: "top level", Package: "web/src/cart.test.ts", Line: 13, EndLine: 15},
			}},
		{name: "node:test suites", path: "src/slug.test.ts", src: "import { suite, test } from 'node:test'\nsuite('slug', () => {\n  test('joins', () => {})\n})\n",
			want: []domain.TestDeclaration{{Name: "slug > joins", Package: "src/slug.test.ts", Line: 3, EndLine: 3}}},
		{name: "javascript in __tests__", path: "lib/__tests__/sum.js", src: "it('adds', () => {})\n",
			want: []domain.TestDeclaration{{Name: "adds", Package: "lib/__tests__/sum.js", Line: 1, EndLine: 1}}},
		{name: "typescript: not a test file", path: "web/src/cart.ts", src: "test('x', () => {})\n"},
		{name: "rust: module paths, ignore, tokio", path: "crates/calc/src/parser.rs", src: `pub fn parse() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert!(true);
    }

    #[test]
    #[ignore]
    fn slow() {}

    #[tokio::test]
    async fn async_parse() {}

    fn helper() {}
}
`, want: []domain.TestDeclaration{
			{Name: "parser::tests::parses", Line: 7, EndLine: 10},
			{Name: "parser::tests::async_parse", Line: 16, EndLine: 17},
		}},
		{name: "rust: an integration test is a crate root", path: "tests/it.rs", src: "#[test]\nfn adds() {\n    assert_eq!(2, 1 + 1);\n}\n",
			want: []domain.TestDeclaration{{Name: "adds", Line: 1, EndLine: 4}}},
		{name: "java: JUnit annotations", path: "src/test/java/com/acme/CartTest.java", src: `package com.acme;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void totalIsZero() {
        assertEquals(0, new Cart().total());
    }

    @Test
    @Disabled("later")
    void later() {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void counts(int n) throws Exception {
    }

    private void helper() {}

    @org.junit.Test(timeout = 5)
    public void legacy() {}
}
`, want: []domain.TestDeclaration{
			{Name: "totalIsZero", Package: "com.acme.CartTest", Line: 6, EndLine: 9},
			{Name: "counts", Package: "com.acme.CartTest", Line: 15, EndLine: 18},
			{Name: "legacy", Package: "com.acme.CartTest", Line: 22, EndLine: 23},
		}},
		{name: "go is not read here", path: "calc/calc_test.go", src: "package calc\nfunc TestX(t *testing.T) {}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i := range tt.want {
				tt.want[i].File = tt.path
			}
			assert.Equal(t, tt.want, Tests(tt.path, []byte(tt.src)))
		})
	}
}
