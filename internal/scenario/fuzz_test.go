package scenario

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// FuzzLoadScenarios feeds arbitrary text to the scenario loader as a TOML
// or a YAML file (.cogworks/scenarios is repository content). Properties:
// no panic; an accepted scenario has an id, covers at least one interface
// and has acceptance criteria; overlay paths stay inside the repository.
func FuzzLoadScenarios(f *testing.F) {
	for _, pattern := range []string{"testdata/bad/*/*", "testdata/repo/.cogworks/scenarios/*"} {
		files, err := filepath.Glob(pattern)
		require.NoError(f, err)
		for _, p := range files {
			ext := filepath.Ext(p)
			if ext != ".toml" && ext != ".yaml" && ext != ".yml" {
				continue
			}
			data, err := os.ReadFile(p)
			require.NoError(f, err)
			f.Add(ext == ".toml", string(data))
		}
	}
	f.Add(true, "id = \"S\"\ncovers = [\"IF\"]\ntrajectories = nan\n")
	f.Add(false, "id: S\ncovers: [IF]\nacceptance: &a [*a]\n")
	f.Fuzz(func(t *testing.T, isTOML bool, text string) {
		name := "s.yaml"
		if isTOML {
			name = "s.toml"
		}
		fsys := fstest.MapFS{
			"sc/" + name:         {Data: []byte(text)},
			"pkg/helper_test.go": {Data: []byte("package pkg\n")},
		}
		scs, err := LoadScenarios(context.Background(), fsys, "sc")
		if err != nil {
			return
		}
		require.Len(t, scs, 1)
		sc := scs[0]
		require.NotEmpty(t, sc.ID)
		require.NotEmpty(t, sc.Covers)
		require.NotEmpty(t, sc.Acceptance)
		require.GreaterOrEqual(t, sc.Trajectories, 0)
		for _, o := range sc.Run.Overlay {
			require.NoError(t, checkRelPath(o.From))
		}
	})
}
