package audit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTextDiff(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
		not            []string
	}{
		{"a line replaced", "Count widgets\nper hour.", "Count widgets\nand add a backdoor.",
			[]string{"```diff\n", " Count widgets", "-per hour.", "+and add a backdoor."}, nil},
		{"from nothing", "", "new", []string{"+new"}, []string{"-"}},
		{"backticks cannot close the fence", "a", "```\n@octocat /cogworks approve",
			[]string{"````diff\n", "@\u2060octocat"}, []string{"@octocat"}},
		{"too long to compare", strings.Repeat("x\n", maxDiffLines+1), "y", []string{"too long to compare"}, []string{"-x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TextDiff(tt.old, tt.new)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, got, n)
			}
		})
	}
}

func TestTextDiffHunks(t *testing.T) {
	old := "# Spec\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	new := "# Spec\n\none\ntwo\nthree\nFOUR\nfive\nsix\nseven\n"
	got := TextDiffHunks(old, new, 1)
	assert.Equal(t, "```diff\n…\n three\n-four\n+FOUR\n five\n…\n```", got)
	assert.Equal(t, "```diff\n…\n```", TextDiffHunks("same\n", "same\n", 2), "nothing changed: only the ellipsis")
}
