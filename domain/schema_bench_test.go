package domain

import "testing"

// BenchmarkCompileSchemas measures one compilation of the published
// schemas: the cost CompileSchemas pays once per process.
func BenchmarkCompileSchemas(b *testing.B) {
	for b.Loop() {
		if _, err := compileSchemas(); err != nil {
			b.Fatal(err)
		}
	}
}
