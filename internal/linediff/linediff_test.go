package linediff_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/internal/linediff"
)

// render writes ops as diff lines, one per line.
func render(ops []linediff.Op) string {
	var b strings.Builder
	for _, op := range ops {
		b.WriteString(op.String() + "\n")
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", " a\n b\n"},
		{"from nothing", "", "a\n", "+a\n"},
		{"to nothing", "a\nb\n", "", "-a\n-b\n"},
		{"replacement: removal first", "a\nb\nc\n", "a\nB\nc\n", " a\n-b\n+B\n c\n"},
		{"insertion in the middle", "a\nb\n", "a\nnew\nb\n", " a\n+new\n b\n"},
		{"moved line keeps the longest common part", "x\na\nb\nc\n", "a\nb\nc\nx\n", "-x\n a\n b\n c\n+x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, render(linediff.Diff(linediff.Lines(tt.old), linediff.Lines(tt.new))))
		})
	}
}

// TestDiffPastTheTableBound: texts whose differing middles exceed the
// table are diffed as all removed then all added, around the common
// prefix and suffix, instead of allocating the table.
func TestDiffPastTheTableBound(t *testing.T) {
	t.Parallel()
	a, b := []string{"head"}, []string{"head"}
	for i := range 3000 {
		a = append(a, fmt.Sprint("a", i))
		b = append(b, fmt.Sprint("b", i))
	}
	a, b = append(a, "tail"), append(b, "tail")
	ops := linediff.Diff(a, b)
	assert.Len(t, ops, 6002)
	assert.Equal(t, linediff.Op{Kind: ' ', Text: "head"}, ops[0])
	assert.Equal(t, linediff.Op{Kind: '-', Text: "a0"}, ops[1])
	assert.Equal(t, linediff.Op{Kind: '+', Text: "b0"}, ops[3001])
	assert.Equal(t, linediff.Op{Kind: ' ', Text: "tail"}, ops[6001])
}

func TestHunks(t *testing.T) {
	t.Parallel()
	lines := make([]string, 20)
	for i := range lines {
		lines[i] = fmt.Sprint(i + 1)
	}
	edit := func(repl map[int]string) []string {
		c := append([]string(nil), lines...)
		for i, s := range repl {
			c[i-1] = s
		}
		return c
	}
	hunks := func(a, b []string) string {
		var out strings.Builder
		for _, h := range linediff.Hunks(linediff.Diff(a, b), 3) {
			out.WriteString(h.Header() + "\n" + render(h.Ops))
		}
		return out.String()
	}
	tests := []struct {
		name string
		old  []string
		new  []string
		want string
	}{
		{"equal", lines, lines, ""},
		{"close changes share a hunk", lines, edit(map[int]string{5: "five", 9: "nine"}),
			"@@ -2,11 +2,11 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n"},
		{"changes six unchanged lines apart share a hunk", lines, edit(map[int]string{5: "five", 12: "twelve"}),
			"@@ -2,14 +2,14 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n 11\n-12\n+twelve\n 13\n 14\n 15\n"},
		{"far changes get their own hunks", lines, edit(map[int]string{2: "two", 18: "eighteen"}),
			"@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"},
		{"deletion of everything", []string{"a"}, nil, "@@ -1,1 +0,0 @@\n-a\n"},
		{"a new file", nil, []string{"a", "b"}, "@@ -0,0 +1,2 @@\n+a\n+b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, hunks(tt.old, tt.new))
		})
	}
}
