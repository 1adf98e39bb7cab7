package planning

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"
)

func TestDiffPlanByStableID(t *testing.T) {
	item := func(id, title string, files ...string) planner.SubWorkItem {
		return planner.SubWorkItem{ID: id, Title: title, Files: files}
	}
	records := []pipeline.SWI{{SubWorkItem: item("a", "A", "a.go")}, {SubWorkItem: item("b", "B", "b.go")}, {SubWorkItem: item("c", "C", "c.go")}}
	tests := []struct {
		name  string
		items []planner.SubWorkItem
		want  planDiff
	}{
		{"the same plan", []planner.SubWorkItem{item("a", "A", "a.go"), item("b", "B", "b.go"), item("c", "C", "c.go")}, planDiff{}},
		{"a changed title", []planner.SubWorkItem{item("a", "A", "a.go"), item("b", "B2", "b.go"), item("c", "C", "c.go")}, planDiff{changed: []string{"b"}}},
		{"changed files", []planner.SubWorkItem{item("a", "A", "a.go", "x.go"), item("b", "B", "b.go"), item("c", "C", "c.go")}, planDiff{changed: []string{"a"}}},
		{"added and obsolete", []planner.SubWorkItem{item("a", "A", "a.go"), item("d", "D", "d.go"), item("c", "C", "c.go")}, planDiff{added: []string{"d"}, obsolete: []string{"b"}}},
		{"reordered only", []planner.SubWorkItem{item("c", "C", "c.go"), item("a", "A", "a.go"), item("b", "B", "b.go")}, planDiff{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, diffPlan(records, tc.items))
		})
	}
}
