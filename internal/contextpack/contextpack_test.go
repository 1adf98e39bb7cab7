package contextpack

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// byteCount counts one token per byte, which keeps expectations readable.
func byteCount(s string) int { return len(s) }

func item(prio int, path string, size, dist int) Item {
	return Item{Priority: prio, Kind: ItemKind(fmt.Sprintf("p%d", prio)), Path: path, Content: strings.Repeat("x", size), Distance: dist}
}

func paths(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Path
	}
	return out
}

func TestAssertCODE006_TruncationFollowsPriorityOrder(t *testing.T) {
	// Every path is 1 byte ("a".."g"), so an item of size n costs n+1.
	items := []Item{
		item(1, "a", 9, 0), // 10: interface, never dropped
		item(2, "b", 9, 0), // 10: dependency output
		item(3, "c", 9, 0), // 10: constraint
		item(4, "d", 9, 0), // 10: standard
		item(5, "e", 9, 1), // 10: near file
		item(5, "f", 9, 3), // 10: far file
		item(5, "g", 9, 2), // 10: middle file
	}
	tests := []struct {
		name    string
		window  int
		kept    []string
		dropped []string
	}{
		{"everything fits", 70, []string{"a", "b", "c", "d", "e", "g", "f"}, nil},
		{"farthest priority-5 first", 60, []string{"a", "b", "c", "d", "e", "g"}, []string{"f"}},
		{"then next farthest", 50, []string{"a", "b", "c", "d", "e"}, []string{"f", "g"}},
		{"priority 5 before 4", 40, []string{"a", "b", "c", "d"}, []string{"f", "g", "e"}},
		{"then standards", 30, []string{"a", "b", "c"}, []string{"f", "g", "e", "d"}},
		{"then constraints", 25, []string{"a", "b"}, []string{"f", "g", "e", "d", "c"}},
		{"interface alone", 10, []string{"a"}, []string{"f", "g", "e", "d", "c", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Assemble(items, tt.window, byteCount)
			require.NoError(t, err)
			assert.Equal(t, tt.kept, paths(p.Items))
			assert.Equal(t, tt.dropped, nilIfEmpty(paths(p.Dropped)))
			assert.LessOrEqual(t, p.Tokens, tt.window)
			assert.Equal(t, 10*len(tt.kept), p.Tokens)
		})
	}
}

func TestAssertCODE006_PriorityOneNeverDroppedOverflowIsAnError(t *testing.T) {
	items := []Item{item(1, "if/a.go", 50, 0), item(1, "if/b.go", 50, 0), item(5, "x.go", 1, 0)}
	_, err := Assemble(items, 80, byteCount)
	var oe *OverflowError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 114, oe.Tokens)
	assert.Equal(t, 80, oe.Window)
	assert.Equal(t, []string{"if/a.go", "if/b.go"}, oe.Paths)
	assert.Contains(t, err.Error(), "if/a.go")
}

func TestAssembleIsIndependentOfInputOrder(t *testing.T) {
	items := []Item{
		item(5, "z.go", 5, 2), item(5, "y.go", 5, 2), item(3, "c.md", 4, 0),
		item(1, "i.go", 3, 0), item(5, "w.go", 5, 2), item(2, "d.go", 2, 0),
	}
	want, err := Assemble(items, 30, byteCount)
	require.NoError(t, err)
	rev := make([]Item, len(items))
	for i, it := range items {
		rev[len(items)-1-i] = it
	}
	got, err := Assemble(rev, 30, byteCount)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	// Equal distance and size: paths decide, the last in order goes first.
	assert.Equal(t, []string{"z.go", "y.go"}, paths(want.Dropped))
}

func TestAssembleRejectsBadInput(t *testing.T) {
	tests := []struct {
		name   string
		items  []Item
		window int
		count  func(string) int
		want   string
	}{
		{"priority 0", []Item{item(0, "a", 1, 0)}, 10, byteCount, `"a": priority 0 out of range`},
		{"priority 6", []Item{item(6, "b", 1, 0)}, 10, byteCount, `"b": priority 6 out of range`},
		{"negative window", nil, -1, byteCount, "negative window"},
		{"no counter", nil, 10, nil, "no token counter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Assemble(tt.items, tt.window, tt.count)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestAssertSCEN002_ScenarioFilesNeverIncluded(t *testing.T) {
	in := []string{
		"brake/brake.go",
		".cogworks/scenarios/brake.toml",
		"./.cogworks/scenarios/brake_test.go",
		".cogworks/scenarios/sub/dir/x.yaml",
		"brake/../.cogworks/scenarios/y.toml",
		".cogworks\\scenarios\\win.toml",
		".cogworks/scenarios",
		".cogworks/scenarios-notes.md",
		".cogworks/config.toml",
		"docs/scenarios/readme.md",
	}
	want := []string{"brake/brake.go", ".cogworks/scenarios-notes.md", ".cogworks/config.toml", "docs/scenarios/readme.md"}
	for _, dir := range []string{".cogworks/scenarios", "./.cogworks/scenarios/", ""} {
		t.Run("dir="+dir, func(t *testing.T) {
			assert.Equal(t, want, ExcludeScenarios(in, dir))
			var items []Item
			for _, p := range in {
				items = append(items, Item{Priority: 5, Path: p, Content: "relevant to brake"})
			}
			assert.Equal(t, want, paths(ExcludeScenarioItems(items, dir)))
		})
	}
	assert.Equal(t, []string{"brake/brake.go", ".cogworks/scenarios/brake.toml"},
		ExcludeScenarios([]string{"brake/brake.go", ".cogworks/scenarios/brake.toml", "holdout/x.toml"}, "holdout"),
		"a configured directory replaces the default")
}

func TestPropertyTruncationKeepsPriorityOneAndWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "n")
		items := make([]Item, n)
		p1 := 0
		for i := range items {
			it := Item{
				Priority: rapid.IntRange(1, 5).Draw(t, "prio"),
				Path:     fmt.Sprintf("f%02d", i),
				Content:  strings.Repeat("x", rapid.IntRange(0, 50).Draw(t, "size")),
				Distance: rapid.IntRange(0, 5).Draw(t, "dist"),
			}
			if it.Priority == 1 {
				p1 += ItemTokens(it, byteCount)
			}
			items[i] = it
		}
		window := rapid.IntRange(0, 1500).Draw(t, "window")
		p, err := Assemble(items, window, byteCount)
		if p1 > window {
			var oe *OverflowError
			if !errors.As(err, &oe) {
				t.Fatalf("want OverflowError with %d priority-1 tokens in window %d, got %v", p1, window, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		if p.Tokens > window {
			t.Fatalf("pack of %d tokens exceeds window %d", p.Tokens, window)
		}
		if len(p.Items)+len(p.Dropped) != n {
			t.Fatalf("kept %d + dropped %d != %d items", len(p.Items), len(p.Dropped), n)
		}
		sum, maxKept := 0, 0
		for _, it := range p.Items {
			sum += ItemTokens(it, byteCount)
			maxKept = max(maxKept, it.Priority)
		}
		if sum != p.Tokens {
			t.Fatalf("Tokens %d != sum of kept %d", p.Tokens, sum)
		}
		for _, d := range p.Dropped {
			if d.Priority == 1 {
				t.Fatalf("priority-1 item %s dropped", d.Path)
			}
			if d.Priority < maxKept {
				t.Fatalf("dropped priority %d (%s) while keeping priority %d", d.Priority, d.Path, maxKept)
			}
		}
	})
}

func BenchmarkAssemble10000Files(b *testing.B) {
	items := make([]Item, 10_000)
	for i := range items {
		prio := 5
		switch {
		case i < 10:
			prio = 1
		case i < 50:
			prio = 2
		case i < 100:
			prio = 3 + i%2
		}
		items[i] = Item{
			Priority: prio, Kind: "file", Path: fmt.Sprintf("pkg%03d/file%05d.go", i%300, i),
			Content: strings.Repeat("func f() {}\n", 20+i%50), Distance: i % 7,
		}
	}
	count := func(s string) int { return (len(s) + 2) / 3 }
	b.ReportAllocs()
	for b.Loop() {
		p, err := Assemble(items, 200_000, count)
		if err != nil || len(p.Items) == 0 {
			b.Fatalf("assemble: %v", err)
		}
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}
