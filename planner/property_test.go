package planner

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// genItems draws n items with random depends_on edges. When acyclic is true
// edges only point to items with a smaller index (so the graph is a DAG);
// otherwise any edge may be drawn.
func genItems(t *rapid.T, acyclic bool) []SubWorkItem {
	n := rapid.IntRange(1, 25).Draw(t, "n")
	items := make([]SubWorkItem, n)
	for i := range items {
		items[i].ID = fmt.Sprintf("n%02d", i)
	}
	for i := range items {
		limit := n
		if acyclic {
			limit = i
		}
		if limit == 0 {
			continue
		}
		k := rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("deps%d", i))
		for range k {
			j := rapid.IntRange(0, limit-1).Draw(t, "dep")
			items[i].DependsOn = append(items[i].DependsOn, items[j].ID)
		}
	}
	// Shuffle the input so order is not given away by position.
	perm := rapid.Permutation(items).Draw(t, "perm")
	return perm
}

func TestPropertyOrderRespectsEveryEdge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, true)
		ordered, err := Order(items)
		if err != nil {
			t.Fatalf("acyclic input rejected: %v", err)
		}
		pos := map[string]int{}
		for i, it := range ordered {
			pos[it.ID] = i
		}
		if len(pos) != len(items) {
			t.Fatalf("got %d items, want %d", len(pos), len(items))
		}
		for _, it := range items {
			for _, d := range it.DependsOn {
				if pos[d] >= pos[it.ID] {
					t.Fatalf("%s placed before its dependency %s", it.ID, d)
				}
			}
		}
		again, err := Order(slices.Clone(items))
		if err != nil || !slices.EqualFunc(again, ordered, func(a, b SubWorkItem) bool { return a.ID == b.ID }) {
			t.Fatalf("order not deterministic")
		}
	})
}

func TestPropertyReportedCycleIsReal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		items := genItems(t, false)
		edges := map[[2]string]bool{}
		for _, it := range items {
			for _, d := range it.DependsOn {
				edges[[2]string{it.ID, d}] = true
			}
		}
		_, err := Order(items)
		var ce *CycleError
		if !errors.As(err, &ce) {
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		p := ce.Path
		if len(p) < 2 || p[0] != p[len(p)-1] {
			t.Fatalf("cycle %v does not close", p)
		}
		for i := 0; i+1 < len(p); i++ {
			if !edges[[2]string{p[i], p[i+1]}] {
				t.Fatalf("cycle %v: %s → %s is not an edge", p, p[i], p[i+1])
			}
		}
	})
}
