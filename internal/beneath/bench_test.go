//go:build unix

package beneath

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkReadFile compares a confined read of a source file three
// directories deep with os.ReadFile, the read it replaced.
func BenchmarkReadFile(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.go"), make([]byte, 8<<10), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("beneath", func(b *testing.B) {
		for b.Loop() {
			if _, err := ReadFile(root, "a/b/c/x.go", 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			f, err := openWalk(root, "a/b/c/x.go")
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(filepath.Join(root, "a/b/c/x.go")); err != nil {
				b.Fatal(err)
			}
		}
	})
}
