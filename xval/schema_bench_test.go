package xval

import "testing"

// BenchmarkCompileSchema measures one compilation of the registry schema:
// the cost registry loads pay once per process.
func BenchmarkCompileSchema(b *testing.B) {
	for b.Loop() {
		if _, err := compileSchema(); err != nil {
			b.Fatal(err)
		}
	}
}
