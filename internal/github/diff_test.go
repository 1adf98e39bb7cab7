package github

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPatchLines(t *testing.T) {
	tests := []struct {
		name, patch string
		want        []int
	}{
		{"one hunk", "@@ -12,7 +12,7 @@\n l12\n l13\n l14\n-l15\n+changed\n l16\n l17\n l18", []int{12, 13, 14, 15, 16, 17, 18}},
		{"new file", "@@ -0,0 +1,2 @@\n+a\n+b", []int{1, 2}},
		{"two hunks with heading", "@@ -1,2 +1,3 @@ func x\n a\n+b\n c\n@@ -40,1 +41,1 @@\n-x\n+y", []int{1, 2, 3, 41}},
		{"no newline marker", "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b", []int{1}},
		{"no patch", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int
			for l := range PatchLines(tt.patch) {
				got = append(got, l)
			}
			assert.ElementsMatch(t, tt.want, got)
		})
	}
}
