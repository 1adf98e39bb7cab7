package llm

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// benchCode mirrors the code-generation output: many files.
type benchCode struct {
	Files []struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"files"`
	Notes string `json:"notes"`
}

// BenchmarkSchemaValidate10000Files validates an answer listing 10,000
// files against its generated schema (docs/spec.md §16 target: < 1 s).
func BenchmarkSchemaValidate10000Files(b *testing.B) {
	schema, err := SchemaFor(reflect.TypeOf(benchCode{}))
	if err != nil {
		b.Fatal(err)
	}
	var answer benchCode
	answer.Files = make([]struct {
		Path    string `json:"path"`
		Content string `json:"content"`
	}, 10000)
	for i := range answer.Files {
		answer.Files[i].Path = fmt.Sprintf("pkg%d/file%d.go", i/100, i)
		answer.Files[i].Content = "package p\n\nfunc F() int { return 1 }\n"
	}
	data, err := json.Marshal(answer)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := schema.Validate(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuiltinModelTable parses the embedded model table, the cost
// ModelFacts pays per request when a provider has no table of its own
// (providers.FromConfig gives it one, parsed once).
func BenchmarkBuiltinModelTable(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := BuiltinModelTable(); err != nil {
			b.Fatal(err)
		}
	}
}
