package pipeline

import (
	"fmt"
	"testing"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/planner"
)

// BenchmarkSnapshotView measures the copy the engine hands an executor
// each step (Snapshot.View) for a plan of 20 sub-work-items with their
// committed files, feedback and usage (benchmarks/README.md).
func BenchmarkSnapshotView(b *testing.B) {
	s := NewSnapshot("acme/widgets", 7)
	s.Classification = &classify.Classification{Type: classify.TypeFeature, AffectedModules: []string{"widgets", "counter"}}
	s.Ledger.PerStage = map[string]Usage{"intake": {Calls: 1, InputTokens: 900}, "code-generation": {Calls: 40, InputTokens: 400000}}
	for i := range 20 {
		id := fmt.Sprintf("swi-%d", i)
		s.SubWorkItems = append(s.SubWorkItems, SWI{
			SubWorkItem: planner.SubWorkItem{ID: id, Title: "Item " + id, Description: "Does a thing for " + id, Files: []string{"widgets/" + id + ".go"}},
			Issue:       100 + i, Order: i + 1, Status: SWICompleted, Branch: "cogworks/7/" + id, PR: 200 + i,
			Attempts: map[Stage]int{StageCodeGeneration: 2}, Usage: Usage{Calls: 2, InputTokens: 20000},
			Feedback: "fix the failing test in widgets/" + id + "_test.go", Committed: []string{"widgets/" + id + ".go", "widgets/" + id + "_test.go"},
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.View(); err != nil {
			b.Fatal(err)
		}
	}
}
