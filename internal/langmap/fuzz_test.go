package langmap

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParsers gives every language's parser the same arbitrary text: the
// map reads untrusted repositories, so no input may panic, and every
// symbol must have a line within the file.
func FuzzParsers(f *testing.F) {
	for _, p := range []string{"python/src/shop/core/cart.py", "typescript/web/config.ts", "rust/src/lib.rs",
		"java/src/main/java/com/acme/shop/Cart.java"} {
		src, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		src = src[:len(src):len(src)]
		for _, lang := range languages {
			info := lang.parse(src)
			for _, s := range info.symbols {
				if s.Line < 1 || s.Line > info.lines {
					t.Fatalf("%s: %s at line %d of %d", lang.name, s.Name, s.Line, info.lines)
				}
			}
		}
		// Test declarations are read from the same untrusted text.
		for _, p := range []string{"tests/test_x.py", "src/x.test.ts", "src/lib.rs", "src/test/java/XTest.java"} {
			for _, d := range Tests(p, src) {
				if d.Line < 1 || d.EndLine < d.Line {
					t.Fatalf("%s: %s spans lines %d-%d", p, d.Name, d.Line, d.EndLine)
				}
			}
		}
	})
}
