package planner

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func swi(id string, deps ...string) SubWorkItem {
	return SubWorkItem{ID: id, Title: "item " + id, DependsOn: deps}
}

func ids(items []SubWorkItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

func TestAssertPLAN001_AcyclicGivesTopologicalOrder(t *testing.T) {
	tests := []struct {
		name  string
		items []SubWorkItem
		want  []string
	}{
		{"single", []SubWorkItem{swi("a")}, []string{"a"}},
		{"chain reversed input", []SubWorkItem{swi("c", "b"), swi("b", "a"), swi("a")}, []string{"a", "b", "c"}},
		{"tiers sorted by id", []SubWorkItem{swi("d", "b", "c"), swi("c", "a"), swi("b", "a"), swi("a")}, []string{"a", "b", "c", "d"}},
		{"smallest ready id first, not tier order", []SubWorkItem{swi("z"), swi("b", "z"), swi("y")}, []string{"y", "z", "b"}},
		{"independent items by id", []SubWorkItem{swi("SWI-3"), swi("SWI-1"), swi("SWI-2")}, []string{"SWI-1", "SWI-2", "SWI-3"}},
		{"duplicate dependency tolerated", []SubWorkItem{swi("b", "a", "a"), swi("a")}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Order(tt.items)
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(got))
			assertRespectsEdges(t, tt.items, got)
		})
	}
}

func TestAssertPLAN002_CycleRejectedWithPath(t *testing.T) {
	tests := []struct {
		name  string
		items []SubWorkItem
		path  []string
		msg   string
	}{
		{"three cycle", []SubWorkItem{swi("A", "B"), swi("B", "C"), swi("C", "A")}, []string{"A", "B", "C", "A"}, "dependency cycle: A → B → C → A"},
		{"self loop", []SubWorkItem{swi("A", "A")}, []string{"A", "A"}, "dependency cycle: A → A"},
		{"cycle behind acyclic prefix", []SubWorkItem{swi("a"), swi("x", "a", "y"), swi("y", "x")}, []string{"x", "y", "x"}, "x → y → x"},
		{"shortest cycle through smallest id", []SubWorkItem{swi("A", "B", "D"), swi("B", "C"), swi("C", "A"), swi("D", "A")}, []string{"A", "D", "A"}, "A → D → A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Order(tt.items)
			var ce *CycleError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tt.path, ce.Path)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestOrderRejectsBadInput(t *testing.T) {
	tests := []struct {
		name  string
		items []SubWorkItem
		msg   string
	}{
		{"unknown dependency", []SubWorkItem{swi("a", "ghost"), swi("b", "phantom")}, `unknown dependency ids: a depends on "ghost"; b depends on "phantom"`},
		{"duplicate id", []SubWorkItem{swi("a"), swi("a")}, `sub_work_items[1]: duplicate id "a"`},
		{"empty id", []SubWorkItem{swi(" ")}, "sub_work_items[0]: empty id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Order(tt.items)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestAssertPLAN003_GranularityLimitEscalates(t *testing.T) {
	items := make([]SubWorkItem, 11)
	for i := range items {
		items[i] = swi(fmt.Sprintf("SWI-%02d", i))
	}
	_, err := Validate(Plan{SubWorkItems: items}, Limits{MaxItems: 10}, nil)
	var esc *escalation.Error
	require.ErrorAs(t, err, &esc)
	assert.Equal(t, ReasonTooManyItems, esc.Code)
	assert.Contains(t, esc.Reason, "11 sub-work-items, more than max_sub_work_items 10")

	ordered, err := Validate(Plan{SubWorkItems: items[:10]}, Limits{MaxItems: 10}, nil)
	require.NoError(t, err)
	assert.Len(t, ordered, 10)
}

func TestAssertPLAN004_UncoveredInterfaceFails(t *testing.T) {
	plan := Plan{SubWorkItems: []SubWorkItem{
		{ID: "a", Interfaces: []string{"IF-1"}},
		{ID: "b", Interfaces: []string{"IF-2"}, DependsOn: []string{"a"}},
	}}
	_, err := Validate(plan, Limits{MaxItems: 10}, []string{"IF-3", "IF-1", "IF-4", "IF-2"})
	var ce *CoverageError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{"IF-3", "IF-4"}, ce.Missing)
	assert.EqualError(t, err, "interfaces not covered by any sub-work-item: IF-3, IF-4")
}

func TestAssertPLAN005_AllInterfacesCoveredPasses(t *testing.T) {
	plan := Plan{SubWorkItems: []SubWorkItem{
		{ID: "b", Interfaces: []string{"IF-2", "IF-3"}, DependsOn: []string{"a"}},
		{ID: "a", Interfaces: []string{"IF-1"}},
	}}
	ordered, err := Validate(plan, Limits{MaxItems: 10}, []string{"IF-1", "IF-2", "IF-3"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, ids(ordered))
}

func TestValidateRejectsBadPlans(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		msg  string
	}{
		{"empty", Plan{}, "no sub-work-items"},
		{"duplicate ids", Plan{SubWorkItems: []SubWorkItem{swi("a"), swi("b"), swi("a")}}, `duplicate ids "a" (sub_work_items[0] and [2])`},
		{"empty id", Plan{SubWorkItems: []SubWorkItem{swi("")}}, "sub_work_items[0].id: empty id"},
		{"cycle", Plan{SubWorkItems: []SubWorkItem{swi("a", "b"), swi("b", "a")}}, "a → b → a"},
		{"marker in id", Plan{SubWorkItems: []SubWorkItem{swi("a"), swi("b -->")}}, `sub_work_items[1].id: id "b -->" is invalid: an id is 1 to 64 ASCII letters or digits`},
		{"every bad id reported", Plan{SubWorkItems: []SubWorkItem{swi("a b"), swi("c/d")}}, `sub_work_items[0].id: id "a b" is invalid`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Validate(tt.plan, Limits{MaxItems: 10}, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
			var esc *escalation.Error
			assert.False(t, errors.As(err, &esc), "bad plans are fed back, not escalated")
		})
	}
}

func assertRespectsEdges(t *testing.T, in, ordered []SubWorkItem) {
	t.Helper()
	pos := map[string]int{}
	for i, it := range ordered {
		pos[it.ID] = i
	}
	require.Len(t, pos, len(in))
	for _, it := range in {
		for _, d := range it.DependsOn {
			assert.Less(t, pos[d], pos[it.ID], "%s must come after its dependency %s", it.ID, d)
		}
	}
}

func TestCheckID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"swi-1", true}, {"TEL-BRAKE-CODEC", true}, {"a", true}, {"v1.2_x", true}, {strings.Repeat("a", MaxIDLength), true},
		{"", false}, {strings.Repeat("a", MaxIDLength+1), false}, {"-a", false}, {"a-", false}, {"a--b", false},
		{"a..b", false}, {"a b", false}, {"a/b", false}, {"<!--", false}, {"a -->", false}, {"cogworks:key=1", false},
		{"sw\u0131-1", false}, {"a|b", false}, {"a`b", false}, {"a\nb", false},
	}
	for _, tt := range tests {
		err := CheckID(tt.id)
		assert.Equal(t, tt.ok, err == nil, "CheckID(%q): %v", tt.id, err)
	}
}
