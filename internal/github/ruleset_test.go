package github_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
)

// TestRulesetRefusalIsNamed: a branch a repository ruleset restricts is
// refused with 422 (git refs) or 409 (contents), "Repository rule
// violations found". The adapter names it a ruleset refusal, not a plain
// 422 (which callers read as a branch race and retry), and not transient.
func TestRulesetRefusalIsNamed(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	sim.SetBranchRuleset("o/r", "cogworks/*")
	main, err := c.GetBranchSHA(ctx, simRepo, "main")
	require.NoError(t, err)
	require.NoError(t, c.CreateBranch(ctx, simRepo, "feature", main), "a branch outside the ruleset is created")

	tests := []struct {
		name   string
		write  func() error
		status int
	}{
		{"create ref", func() error { return c.CreateBranch(ctx, simRepo, "cogworks/7", main) }, 422},
		{"contents write", func() error {
			sim.SetBranchRuleset("o/r", "")
			require.NoError(t, c.CreateBranch(ctx, simRepo, "cogworks/8", main))
			sim.SetBranchRuleset("o/r", "cogworks/*")
			return c.PutFile(ctx, simRepo, github.FileCommit{Path: "a.txt", Branch: "cogworks/8", Message: "m", Content: []byte("a")})
		}, 409},
	}
	for _, tt := range tests {
		err := tt.write()
		var rs *github.RulesetError
		require.ErrorAs(t, err, &rs, tt.name)
		assert.Equal(t, tt.status, rs.Status, tt.name)
		assert.Contains(t, err.Error(), "refused by a repository ruleset", tt.name)
		assert.False(t, errors.Is(err, github.ErrUnprocessable), "%s: not a plain 422 a caller would retry as a race", tt.name)
		assert.False(t, rs.Transient(), tt.name)
		assert.Contains(t, rs.Configuration(), "bypass", tt.name)
	}
}
