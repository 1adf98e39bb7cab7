package stagekit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func numbered(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i + 1)
	}
	return out
}

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	lines := numbered(20)
	join := func(ls []string) string { return strings.Join(ls, "\n") + "\n" }
	edit := func(repl map[int]string) string {
		c := append([]string(nil), lines...)
		for i, s := range repl {
			c[i-1] = s
		}
		return join(c)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", join(lines), join(lines), ""},
		{"close changes share a hunk", join(lines), edit(map[int]string{5: "five", 9: "nine"}),
			"--- a/f\n+++ b/f\n@@ -2,11 +2,11 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n-9\n+nine\n 10\n 11\n 12\n"},
		{"far changes get their own hunks", join(lines), edit(map[int]string{2: "two", 18: "eighteen"}),
			"--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+eighteen\n 19\n 20\n"},
		{"insertion", "a\nb\n", "a\nnew\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n+new\n b\n"},
		{"deletion of everything", "a\n", "", "--- a/f\n+++ b/f\n@@ -1,1 +0,0 @@\n-a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, UnifiedDiff("f", tt.old, tt.new))
		})
	}
}
