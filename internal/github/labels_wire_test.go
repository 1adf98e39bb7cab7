package github_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GitHub's OpenAPI description states the add- and set-labels bodies as
// {"labels": [...]} with at least one label (go-github v62 sends a bare
// array), and removing every label is its own operation (DELETE).
func TestLabelRequestsAsGitHubDescribesThem(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	n := sim.SeedIssue("o/r", "alice", "Add CAN driver", "body")

	tests := []struct {
		name       string
		call       func() error
		wantMethod string
		wantBody   string
		wantLabels []string
	}{
		{"add", func() error { return c.AddLabels(ctx, simRepo, n, "a", "b") }, "POST", `{"labels":["a","b"]}`, []string{"a", "b"}},
		{"set", func() error { _, err := c.SetLabels(ctx, simRepo, n, []string{"c"}); return err }, "PUT", `{"labels":["c"]}`, []string{"c"}},
		{"set none", func() error { _, err := c.SetLabels(ctx, simRepo, n, nil); return err }, "DELETE", "", nil},
	}
	for _, tt := range tests {
		sim.ResetRequests()
		require.NoError(t, tt.call(), tt.name)
		logs := sim.Requests()
		require.Len(t, logs, 1, tt.name)
		assert.Equal(t, tt.wantMethod, logs[0].Method, tt.name)
		assert.Equal(t, "/repos/o/r/issues/1/labels", logs[0].Path, tt.name)
		if tt.wantBody == "" {
			assert.Empty(t, logs[0].Body, tt.name)
		} else {
			assert.JSONEq(t, tt.wantBody, string(logs[0].Body), tt.name)
		}
		assert.ElementsMatch(t, tt.wantLabels, sim.Labels("o/r", n), tt.name)
	}
}
