package domain

import "testing"

func BenchmarkCompileSchemas(b *testing.B) {
	for b.Loop() {
		if _, err := CompileSchemas(); err != nil {
			b.Fatal(err)
		}
	}
}
