package audit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

// BenchmarkStatusComment renders the status comment of a work item late in
// its pipeline: the sample snapshot plus 200 sub-work-item records, as a
// pipeline with several sub-work-items accumulates. Every string in the snapshot is
// redacted, so this measures the redaction patterns' cost per call.
func BenchmarkStatusComment(b *testing.B) {
	s := sampleSnapshot()
	for i := range 200 {
		s.SubWorkItems = append(s.SubWorkItems, pipeline.SWI{SubWorkItem: planner.SubWorkItem{ID: fmt.Sprintf("swi-%d", i+10)},
			Feedback: strings.Repeat("generated code passed go vet and go test; ", 4)})
	}
	m := pipeline.StateMachine()
	for b.Loop() {
		if _, err := StatusComment(s, m, StatusOptions{Headline: "step done", BudgetTokens: 500000, BudgetUSD: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedact redacts one short comment body.
func BenchmarkRedact(b *testing.B) {
	text := "Review passed with 2 warnings; see the sk-learn-style notes and ghp_ prefix docs."
	for b.Loop() {
		_ = Redact(text, "hunter2")
	}
}
