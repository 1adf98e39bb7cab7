package github_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
)

func TestCapBody(t *testing.T) {
	tests := []struct {
		name string
		in   string
		cut  bool
	}{
		{"short", "hello", false},
		{"at the limit, in characters", strings.Repeat("é", github.MaxBodyChars), false},
		{"one over", strings.Repeat("a", github.MaxBodyChars+1), true},
		{"far over, multibyte", "<!-- marker -->" + strings.Repeat("日本", github.MaxBodyChars), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := github.CapBody(tt.in)
			if !tt.cut {
				assert.Equal(t, tt.in, got)
				return
			}
			assert.Equal(t, github.MaxBodyChars, utf8.RuneCountInString(got))
			assert.True(t, utf8.ValidString(got))
			assert.Contains(t, got, "characters cut")
			assert.Equal(t, tt.in[:10], got[:10], "the start (and its marker) is kept")
			assert.Equal(t, got, github.CapBody(got), "capping is stable")
		})
	}
}

// GitHub refuses bodies over 65,536 characters (422); the adapter's writes
// cut them instead of failing the stage.
func TestLongBodiesAreCutNotRefused(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	n := sim.SeedIssue("o/r", "alice", "t", "")
	long := "<!-- cogworks:key -->\n" + strings.Repeat("log line\n", 10_000)
	cm, err := c.CreateComment(ctx, simRepo, n, long)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(cm.Body, "<!-- cogworks:key -->"))
	_, err = c.EditComment(ctx, simRepo, cm.ID, long+"more")
	require.NoError(t, err)
	_, err = c.CreateIssue(ctx, simRepo, github.NewIssue{Title: "x", Body: long})
	require.NoError(t, err)
}

// A write to a transferred issue answers 301; Go would repeat it as a GET
// whose answer reads as success. It is reported instead.
func TestWriteToMovedIssueIsReported(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	sim.CreateRepo("o", "new", "main")
	n := sim.SeedIssue("o/r", "alice", "t", "", "bug")
	moved := sim.MoveIssue("o/r", n, "o/new")

	_, err := c.SetLabels(ctx, simRepo, n, []string{"cogworks:run"})
	var me *github.MovedError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, me.Location, "/repos/o/new/issues/")
	assert.Equal(t, []string{"bug"}, sim.Labels("o/new", moved), "nothing was written")

	is, err := c.GetIssue(ctx, simRepo, n)
	require.NoError(t, err, "a read follows the redirect")
	assert.Equal(t, moved, is.Number)
}

func TestIncompleteSearchIsRetriedThenReported(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	for range 4 {
		sim.SeedIssue("o/r", "alice", "work", "", "cogworks:run")
	}
	sim.SetSearchIncomplete(1)
	got, err := c.SearchIssues(ctx, "repo:o/r label:cogworks:run")
	require.NoError(t, err, "the second try was complete")
	assert.Len(t, got, 4)

	sim.SetSearchIncomplete(2)
	got, err = c.SearchIssues(ctx, "repo:o/r label:cogworks:run")
	require.ErrorIs(t, err, github.ErrIncompleteSearch)
	assert.Len(t, got, 2, "the partial results come with the error")
}
