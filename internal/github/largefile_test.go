package github_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/github"
)

// A file over 1 MB is refused by the contents API's default media type
// (403 too_large); reads and writes of it must still work.
func TestLargeFileReadAndWrite(t *testing.T) {
	t.Parallel()
	c, sim := newSimClient(t)
	ctx := context.Background()
	big := strings.Repeat("0123456789abcdef", 80_000) // 1.28 MB
	sim.SeedFiles("o/r", "main", map[string]string{"data/big.json": big, "small.txt": "s\n"})

	got, err := c.GetFile(ctx, simRepo, "data/big.json", "main")
	require.NoError(t, err)
	assert.Equal(t, len(big), len(got))
	assert.Equal(t, big, string(got))

	small, err := c.GetFile(ctx, simRepo, "small.txt", "main")
	require.NoError(t, err)
	assert.Equal(t, "s\n", string(small))

	_, err = c.GetFile(ctx, simRepo, "data", "main")
	require.ErrorContains(t, err, "is a dir")

	require.NoError(t, c.PutFile(ctx, simRepo, github.FileCommit{Path: "data/big.json", Branch: "main", Message: "grow", Content: []byte(big + "!")}))
	got, err = c.GetFile(ctx, simRepo, "data/big.json", "main")
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(got), "!"), "the update landed")
}
