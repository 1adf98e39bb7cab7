package github_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
)

func TestRequestCounterCountsPerContext(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	sim.SeedFiles("o/r", "main", map[string]string{"README.md": "hi\n"})
	ctx := context.Background()
	outer, total := github.WithRequestCounter(ctx)

	// Goroutines share the client; each counts its own requests.
	reads := []int{1, 3, 5, 7}
	counts := make([]*github.RequestCount, len(reads))
	var wg sync.WaitGroup
	for i, n := range reads {
		var inner context.Context
		inner, counts[i] = github.WithRequestCounter(outer)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				_, err := c.GetBranchSHA(inner, simRepo, "main")
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	_, err := c.GetBranchSHA(outer, simRepo, "main")
	require.NoError(t, err)
	_, err = c.GetBranchSHA(ctx, simRepo, "main") // counted by the client only
	require.NoError(t, err)

	for i, n := range reads {
		assert.Equal(t, int64(n), counts[i].Load(), "goroutine %d", i)
	}
	assert.Equal(t, int64(1+3+5+7+1), total.Load(), "a nested count also counts for its parent")
	assert.Equal(t, int64(1+3+5+7+2), c.Requests())
	var none *github.RequestCount
	assert.Zero(t, none.Load())
}
