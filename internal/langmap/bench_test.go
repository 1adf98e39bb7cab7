package langmap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchSources are one file per language, each about 120 lines, repeated
// to make a generated repository.
var benchSources = map[string]func(i int) string{
	"py": func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "\"\"\"Module %d.\"\"\"\nimport os\nfrom .m%d import x\n\nLIMIT = %d\n\n", i, i+1, i)
		for k := range 10 {
			fmt.Fprintf(&b, "@decorator\nclass C%d(Base):\n    \"\"\"Doc with def fake(): inside.\"\"\"\n\n    def method(self, a: int,\n               b: str = \"x\") -> int:\n        # def comment(): no\n        return a + len(b)\n\n", k)
			fmt.Fprintf(&b, "def f%d(x):\n    return x * 2\n\n", k)
		}
		return b.String()
	},
	"ts": func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "import { x } from './m%d';\nconst re = /a\\/b/g;\n\n", i+1)
		for k := range 10 {
			fmt.Fprintf(&b, "export class C%d<T> extends Base {\n  private v: T[] = [];\n  method(a: number,\n         b: string): number {\n    return `${a}${b}`.length;\n  }\n}\n\n", k)
			fmt.Fprintf(&b, "export function f%d(x: number): number {\n  // function fake() {}\n  return x * 2;\n}\n\n", k)
		}
		return b.String()
	},
	"rs": func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "use crate::m%d::X;\npub const LIMIT: usize = %d;\n\n", i+1, i)
		for k := range 10 {
			fmt.Fprintf(&b, "#[derive(Debug)]\npub struct S%d<'a> { s: &'a str }\n\nimpl<'a> S%d<'a> {\n    pub fn method(&self, a: u32,\n                  b: &str) -> u32 {\n        let c = '{';\n        a + b.len() as u32\n    }\n}\n\n", k, k)
			fmt.Fprintf(&b, "pub fn f%d(x: u32) -> u32 {\n    /* fn fake() {} */\n    x * 2\n}\n\n", k)
		}
		return b.String()
	},
	"java": func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "package com.acme.p%d;\n\nimport java.util.List;\n\n", i%50)
		fmt.Fprintf(&b, "public class C%d {\n", i)
		for k := range 10 {
			fmt.Fprintf(&b, "    private static final String S%d = \"void fake() {}\";\n\n    @Override\n    public <T> List<T> method%d(int a,\n                               String b) throws Exception {\n        return null;\n    }\n\n", k, k)
			fmt.Fprintf(&b, "    static class Inner%d {\n        void m() {}\n    }\n\n", k)
		}
		b.WriteString("}\n")
		return b.String()
	},
}

// writeBenchRepo generates a repository of n files, n/4 per language,
// 10 files to a directory.
func writeBenchRepo(b *testing.B, n int) string {
	b.Helper()
	root := b.TempDir()
	exts := []string{"py", "ts", "rs", "java"}
	for i := range n {
		ext := exts[i%len(exts)]
		dir := filepath.Join(root, ext, fmt.Sprintf("d%d", i/40))
		require.NoError(b, os.MkdirAll(dir, 0o755))
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.%s", i, ext)), []byte(benchSources[ext](i)), 0o644))
	}
	return root
}

// BenchmarkMap2000Files maps a generated 2,000-file repository (500 files
// of about 100 lines in each language) read from disk.
func BenchmarkMap2000Files(b *testing.B) {
	root := writeBenchRepo(b, 2000)
	fsys := os.DirFS(root)
	symbols, lines := 0, 0
	for b.Loop() {
		m, err := Map(context.Background(), fsys)
		require.NoError(b, err)
		symbols, lines = 0, 0
		for _, p := range m.Packages {
			for _, f := range p.Files {
				symbols += len(f.Symbols)
				lines += f.Lines
			}
		}
	}
	b.ReportMetric(float64(symbols), "symbols")
	b.ReportMetric(float64(lines), "lines")
	// The map is built once per planning or code-generation step; 2 s
	// for 2,000 files on the loaded CI machine is the bound (measured
	// 0.2–0.3 s).
	if per := b.Elapsed() / time.Duration(b.N); per > 2*time.Second {
		b.Errorf("mapping 2,000 files took %s, over the 2 s bound", per)
	}
}
