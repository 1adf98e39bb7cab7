package xval

import "testing"

func BenchmarkCompileSchema(b *testing.B) {
	for b.Loop() {
		if _, err := compileSchema(); err != nil {
			b.Fatal(err)
		}
	}
}
