package github

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsRulesetRefusal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		msg    string
		want   bool
	}{
		{422, "Repository rule violations found\n\nCannot create ref due to creations being restricted.\n\n", true},
		{409, "Repository rule violations found\n\nChanges must be made through a pull request.\n\n", true},
		{422, "Changes must be made through a pull request.", true},
		{409, "remote: error: GH013: Repository rule violations found for refs/heads/cogworks/1.", true},
		{422, "Reference already exists", false},
		{422, "Update is not a fast forward", false},
		{409, "a.txt does not match 0123", false},
		{403, "Repository rule violations found", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isRulesetRefusal(tt.status, tt.msg), "%d %q", tt.status, tt.msg)
	}
}
