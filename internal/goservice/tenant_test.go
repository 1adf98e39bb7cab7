package goservice

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/beneath"
	"github.com/cogworks/cogworks/internal/testkit"
)

func TestCacheKeySeparatesTenants(t *testing.T) {
	key := func(tenant, repo string) string {
		k, shared := cacheKey(tenant, repo)
		require.True(t, shared, "%q %q", tenant, repo)
		return k
	}
	a, b := "installation/1/repo/acme/a", "installation/2/repo/evil/b"
	assert.NotEqual(t, key(a, ""), key(b, ""), "two tenants inlining (empty path) never share a layer")
	assert.Equal(t, key(a, "/cache/1/acme/a/sha1"), key(a, "/cache/1/acme/a/sha2"), "a tenant's commits share its layer")
	assert.NotEqual(t, key("", "/repo/a"), key("", "/repo/b"), "without a tenant, the path keys")
	assert.NotEqual(t, key("/repo/a", ""), key("", "/repo/a"), "a tenant never collides with a path")
	_, shared := cacheKey("", "")
	assert.False(t, shared, "nothing to key by: no shared layer")
}

// TestAnonymousCacheLayerIsPrivateAndRemoved: a request with neither a
// tenant nor a path gets a layer no other request sees, gone afterwards.
func TestAnonymousCacheLayerIsPrivateAndRemoved(t *testing.T) {
	r := &runner{cacheDir: t.TempDir(), logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ov1, done1, err := r.cacheOverlay("", "", "")
	require.NoError(t, err)
	ov2, done2, err := r.cacheOverlay("", "", "")
	require.NoError(t, err)
	assert.NotEqual(t, ov1.Upper, ov2.Upper)
	require.NoError(t, os.WriteFile(filepath.Join(ov1.Upper, "planted"), []byte("x"), 0o600))
	done1()
	done2()
	entries, err := os.ReadDir(r.cacheDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "private layers are removed with their request")

	ovA, doneA, err := r.cacheOverlay("tenant-a", "", "")
	require.NoError(t, err)
	doneA()
	ovA2, doneA2, err := r.cacheOverlay("tenant-a", "/elsewhere", "")
	require.NoError(t, err)
	doneA2()
	assert.Equal(t, ovA.Upper, ovA2.Upper, "a tenant's layer persists between its requests")
}

// TestWorkspaceLeavesOutHeldOutScenarios: outside scenario runs, the
// scenario directories are in no workspace — not inlined, not copied next
// to an artifact placed among them, not under a configured directory.
func TestWorkspaceLeavesOutHeldOutScenarios(t *testing.T) {
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":                      "module example.com/m\n",
		".cogworks/config.toml":       "[scenarios]\ndirectory = \"qa/held\"\n",
		".cogworks/scenarios/s1.toml": "secret one\n",
		"qa/held/s2.toml":             "secret two\n",
		"qa/other.txt":                "not held\n",
	})
	inlined := []domain.Artifact{
		{Path: "go.mod", Content: "module example.com/m\n"},
		{Path: ".cogworks/config.toml", Content: "[scenarios]\ndirectory = \"qa/held\"\n"},
		{Path: ".cogworks/scenarios/s1.toml", Content: "secret one\n"},
		{Path: "qa/held/s2.toml", Content: "secret two\n"},
		{Path: "qa/other.txt", Content: "not held\n"},
	}
	tests := []struct {
		name    string
		req     domain.Request
		visible bool
	}{
		{"inlined, code generation", domain.Request{Stage: "code-generation", Artifacts: inlined}, false},
		{"inlined, no stage", domain.Request{Artifacts: inlined}, false},
		{"inlined, scenario run", domain.Request{Stage: ScenarioStage, Artifacts: inlined}, true},
		{"artifacts among the scenarios", domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
			{Path: ".cogworks/scenarios/new.toml", Content: "x"}, {Path: "qa/held/new.toml", Content: "x"}, {Path: "qa/new.txt", Content: "x"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := prepareWorkspace(tt.req)
			require.NoError(t, err)
			t.Cleanup(ws.Remove)
			// A file reached through a link into the repository is masked
			// by the sandbox; a real file of the workspace is not.
			for _, rel := range []string{".cogworks/scenarios/s1.toml", "qa/held/s2.toml"} {
				assert.Equal(t, tt.visible, beneath.IsRegular(ws.dir, rel), rel)
			}
			_, err = os.Stat(filepath.Join(ws.dir, "qa", "other.txt"))
			assert.NoError(t, err, "other files are there")
		})
	}
}
