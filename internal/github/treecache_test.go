package github

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGetTreeReadsATreeOnce checks that a tree is fetched once per SHA and
// recursion: its SHA names its content, so a second listing (a later step
// of the run) needs no request, while another tree or the flat listing of
// the same one does.
func TestGetTreeReadsATreeOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v3/repos/o/r/git/trees/{sha}", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeJSON(t, w, 200, map[string]any{"sha": r.PathValue("sha"), "tree": []any{
			map[string]any{"path": r.PathValue("sha") + ".go", "mode": "100644", "type": "blob", "sha": "b1"},
		}})
	})
	c, _ := newTestClient(t, mux)
	ctx := context.Background()
	for _, tc := range []struct {
		sha       string
		recursive bool
		calls     int32
	}{
		{"t1", true, 1},
		{"t1", true, 1},  // remembered
		{"t1", false, 2}, // another listing
		{"t2", true, 3},  // another tree
		{"t2", true, 3},
	} {
		entries, err := c.GetTree(ctx, testRepo, tc.sha, tc.recursive)
		require.NoError(t, err)
		require.Len(t, entries, 1)
		assert.Equal(t, tc.sha+".go", entries[0].Path)
		assert.Equal(t, tc.calls, calls.Load(), "%s recursive=%v", tc.sha, tc.recursive)
		entries[0].Path = "changed by the caller"
	}
	again, err := c.GetTree(ctx, testRepo, "t1", true)
	require.NoError(t, err)
	assert.Equal(t, "t1.go", again[0].Path, "a caller's edit does not reach the cache")
}
