package langmap

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// symbolsOf renders a parse's symbols as "kind name@line" for compact
// expectations.
func symbolsOf(info fileInfo) []string {
	out := []string{}
	for _, s := range info.symbols {
		out = append(out, fmt.Sprintf("%s %s@%d", s.Kind, s.Name, s.Line))
	}
	return out
}

// TestParsers pins the cases a regular expression over raw text gets
// wrong: declarations inside strings, comments, regexes and templates,
// and nesting that hides or reveals a declaration.
func TestParsers(t *testing.T) {
	tests := []struct {
		name    string
		parse   func([]byte) fileInfo
		src     string
		want    []string
		imports []string
	}{
		{"python triple-quoted def", parsePython, "x = '''\ndef fake():\n'''\ndef real(): pass\n", []string{"var x@1", "func real@4"}, nil},
		{"python def in comment and string", parsePython, "# def c(): pass\ns = \"def d(): pass\"\n", []string{"var s@2"}, nil},
		{"python raw and f strings", parsePython, "r = rb'\\'def x():'\nf = f\"{a}\" \ndef g(): pass\n", []string{"var r@1", "var f@2", "func g@3"}, nil},
		{"python decorated and nested", parsePython, "@d\nclass A:\n    @p\n    def m(self): pass\n    class B:\n        def n(self): pass\n", []string{"type A@2", "method A.m@4", "type A.B@5"}, nil},
		{"python backslash continuation", parsePython, "def f(a,\n      b) -> \\\n    int:\n    pass\n", []string{"func f@1"}, nil},
		{"python type statement", parsePython, "type Pair[T] = tuple[T, T]\ntype = 3\n", []string{"type Pair@1", "var type@2"}, nil},
		{"python imports", parsePython, "import a.b as c, d\nfrom .e import f\nfrom . import g\n", []string{}, []string{"a.b", "d", ".e", "."}},
		{"ts regex and division", parseTypeScript, "const r = /function x\\(/; const q = a / b / c\nfunction real() {}\n", []string{"const r@1", "const q@1", "func real@2"}, nil},
		{"ts template with nested braces", parseTypeScript, "const t = `${ {a: 1}.a } function no() {}`\nexport class C {}\n", []string{"const t@1", "type C@2"}, nil},
		{"ts line without semicolon", parseTypeScript, "export const a = 1\nexport function f() {}\n", []string{"const a@1", "func f@2"}, nil},
		{"ts multi-line class head", parseTypeScript, "export class A\n  extends B {\n  m() {}\n}\n", []string{"type A@1", "method A.m@3"}, nil},
		{"ts export default expression", parseTypeScript, "export default defineConfig({ a: 1 })\n", []string{"var default@1"}, nil},
		{"ts requires and side-effect imports", parseTypeScript, "import './x.css'\nconst y = require(\"y\")\nexport * from '../z'\n", []string{"const y@2"}, []string{"./x.css", "y", "../z"}},
		{"ts type literals are not bodies", parseTypeScript, "function f(): { a: string } { return x }\nfunction g<T extends { k: 1 }>(x: T) {}\nclass C { m(): { b: 1 } { return y } }\n", []string{"func f@1", "func g@2", "type C@3", "method C.m@3"}, nil},
		{"ts overloads once", parseTypeScript, "export function f(a: string): void;\nexport function f(a: any) {}\n", []string{"func f@1"}, nil},
		{"rust raw string and char braces", parseRust, "const A: &str = r#\"fn fake() {\"#;\nconst B: char = '{';\nfn real() {}\n", []string{"const A@1", "const B@2", "func real@3"}, nil},
		{"rust lifetimes are not chars", parseRust, "fn f<'a>(x: &'a str) -> &'a str { x }\nstruct S<'b> { s: &'b str }\n", []string{"func f@1", "type S@2"}, nil},
		{"rust nested block comment", parseRust, "/* a /* fn no() {} */ fn still_no() {} */\nfn yes() {}\n", []string{"func yes@2"}, nil},
		{"rust cfg(test) module", parseRust, "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n", []string{}, nil},
		{"java text block and char", parseJava, "class A {\n  String s = \"\"\"\n    void no() {}\n  \"\"\";\n  char c = '}';\n  void yes() {}\n}\n", []string{"type A@1", "method A.yes@6"}, nil},
		{"java anonymous class in a field", parseJava, "class A {\n  Runnable r = new Runnable() { public void run() {} };\n  void m() {}\n}\n", []string{"type A@1", "method A.m@3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := tt.parse([]byte(tt.src))
			assert.Equal(t, tt.want, symbolsOf(info))
			if tt.imports != nil {
				assert.Equal(t, tt.imports, info.imports)
			}
		})
	}
}

// TestParsersNeverPanic feeds every prefix of every testdata source to its
// parser: a truncated file (an edit in progress, a cut-off download) must
// give a shorter map, never a panic.
func TestParsersNeverPanic(t *testing.T) {
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := languageOf(d.Name())
		if lang == nil {
			return nil
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		// src[:n:n] leaves no spare capacity, so reading past the cut
		// panics as it would on a real file of that length.
		for n := range len(src) + 1 {
			require.NotPanics(t, func() { lang.parse(src[:n:n]) }, "%s cut at %d", p, n)
		}
		return nil
	})
	require.NoError(t, err)
}

// TestTestFiles checks each language's test-file convention.
func TestTestFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"Cargo.toml":                       {Data: []byte("[package]\nname = \"c\"\n")},
		"src/lib.rs":                       {Data: []byte("#[cfg(test)]\nmod tests;\nmod real;\n")},
		"src/tests.rs":                     {},
		"src/real.rs":                      {},
		"tests/it.rs":                      {},
		"pkg/test_a.py":                    {},
		"pkg/a_test.py":                    {},
		"pkg/a.py":                         {},
		"tests/helpers.py":                 {},
		"web/a.test.ts":                    {},
		"web/a.spec.tsx":                   {},
		"web/__tests__/b.js":               {},
		"web/a.ts":                         {},
		"web/test/setup.mjs":               {},
		"web/contest.ts":                   {},
		"app/src/test/java/a/ATest.java":   {},
		"app/src/test/java/a/Helper.java":  {},
		"app/src/main/java/a/A.java":       {},
		"app/src/main/java/a/Testing.java": {},
	}
	got, err := Map(context.Background(), fsys)
	require.NoError(t, err)
	tests := map[string]bool{}
	for _, p := range got.Packages {
		for _, f := range p.Files {
			tests[f.Path] = f.Test
		}
	}
	assert.Equal(t, map[string]bool{
		"src/lib.rs": false, "src/tests.rs": true, "src/real.rs": false, "tests/it.rs": true,
		"pkg/test_a.py": true, "pkg/a_test.py": true, "pkg/a.py": false, "tests/helpers.py": true,
		"web/a.test.ts": true, "web/a.spec.tsx": true, "web/__tests__/b.js": true, "web/a.ts": false, "web/contest.ts": false, "web/test/setup.mjs": true,
		"app/src/test/java/a/ATest.java": true, "app/src/test/java/a/Helper.java": true,
		"app/src/main/java/a/A.java": false, "app/src/main/java/a/Testing.java": false,
	}, tests)
}

// TestPackageIdentity checks how packages are named and imports resolved
// to them: a src/-layout Python package is `pkg`, not `src`.
func TestPackageIdentity(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		want map[string]string // dir → import path [imports]
	}{
		{"python src layout", fstest.MapFS{
			"src/pkg/__init__.py":     {},
			"src/pkg/sub/__init__.py": {Data: []byte("from ..core import x\nfrom . import y\n")},
			"src/pkg/core.py":         {},
			"tests/test_a.py":         {Data: []byte("import pkg.sub.mod\n")},
		}, map[string]string{"src/pkg": "pkg []", "src/pkg/sub": "pkg.sub [pkg]", "tests": "tests [pkg.sub]"}},
		{"python flat layout", fstest.MapFS{
			"pkg/__init__.py":   {},
			"pkg/a/__init__.py": {},
			"scripts/run.py":    {Data: []byte("import pkg.a\nimport requests\n")},
		}, map[string]string{"pkg": "pkg []", "pkg/a": "pkg.a []", "scripts": "scripts [pkg.a requests]"}},
		{"typescript package.json name", fstest.MapFS{
			"package.json":  {Data: []byte(`{"name": "app"}`)},
			"index.ts":      {Data: []byte("import { a } from './src/a/deep'\n")},
			"src/a/deep.ts": {Data: []byte("import x from '../../../outside'\nimport React from 'react'\n")},
		}, map[string]string{".": "app [app/src/a]", "src/a": "app/src/a [react]"}},
		{"rust crate and modules", fstest.MapFS{
			"Cargo.toml":      {Data: []byte("[package]\nname = \"my-crate\"\n")},
			"src/main.rs":     {Data: []byte("use crate::net::conn::Conn;\n")},
			"src/net/conn.rs": {Data: []byte("use super::super::Config;\nuse self::inner::X;\n")},
		}, map[string]string{"src": "my_crate [my_crate::net]", "src/net": "my_crate::net [my_crate]"}},
		{"java package clause", fstest.MapFS{
			"a/b/C.java": {Data: []byte("package com.x.b;\nimport com.x.d.E;\nimport com.x.d.*;\n")},
			"a/d/E.java": {Data: []byte("package com.x.d;\n")},
		}, map[string]string{"a/b": "com.x.b [com.x.d]", "a/d": "com.x.d []"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Map(context.Background(), tt.fsys)
			require.NoError(t, err)
			have := map[string]string{}
			for _, p := range got.Packages {
				have[p.Dir] = p.ImportPath + " [" + strings.Join(p.Imports, " ") + "]"
			}
			assert.Equal(t, tt.want, have)
		})
	}
}

// TestMapLimits checks the bounds: an oversized file is listed with a
// diagnostic, dependency directories are not read, a cancelled context
// stops the walk.
func TestMapLimits(t *testing.T) {
	fsys := fstest.MapFS{
		"big.js":                {Data: []byte(strings.Repeat("x", maxFileSize+1))},
		"node_modules/dep/a.js": {Data: []byte("function f() {}")},
		".venv/lib/site.py":     {Data: []byte("def f(): pass")},
		"target/debug/build.rs": {Data: []byte("fn f() {}")},
		"ok.py":                 {Data: []byte("def f(): pass")},
	}
	got, err := Map(context.Background(), fsys)
	require.NoError(t, err)
	var paths []string
	for _, p := range got.Packages {
		for _, f := range p.Files {
			paths = append(paths, f.Path)
		}
	}
	assert.ElementsMatch(t, []string{"big.js", "ok.py"}, paths)
	require.Len(t, got.Diagnostics, 1)
	assert.Equal(t, "big.js", got.Diagnostics[0].Artifact)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Map(ctx, fsys)
	require.ErrorIs(t, err, context.Canceled)
}
