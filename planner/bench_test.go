package planner

import (
	"fmt"
	"testing"
)

// BenchmarkOrder10000 orders 10,000 items where each depends on up to three
// earlier ones (SPEC §16 target: < 100 ms).
func BenchmarkOrder10000(b *testing.B) {
	const n = 10000
	items := make([]SubWorkItem, n)
	for i := range items {
		items[i].ID = fmt.Sprintf("SWI-%05d", i)
		for _, d := range []int{i - 1, i / 2, i - 7} {
			if d >= 0 && d < i {
				items[i].DependsOn = append(items[i].DependsOn, items[d].ID)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Order(items); err != nil {
			b.Fatal(err)
		}
	}
}
