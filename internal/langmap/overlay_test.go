package langmap

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// TestOverlay maps a checkout with a stage's artifacts laid over it: an
// edited file reads as edited, a file in a new directory appears, a
// deleted one is gone, a path escaping the root is ignored, the rest
// reads from the checkout.
func TestOverlay(t *testing.T) {
	base := fstest.MapFS{
		"pkg/__init__.py": {},
		"pkg/a.py":        {Data: []byte("def old(): pass\n")},
		"pkg/b.py":        {Data: []byte("def kept(): pass\n")},
	}
	base["pkg/gone.py"] = &fstest.MapFile{Data: []byte("def gone(): pass\n")}
	fsys := Overlay(base, []domain.Artifact{
		{Path: "pkg/a.py", Content: "def new(): pass\n"},
		{Path: "pkg/sub/deep/c.py", Content: "class C: pass\n"},
		{Path: "../escape.py", Content: "def no(): pass\n"},
		{Path: "pkg/gone.py", Delete: true},
	})
	require.NoError(t, fstest.TestFS(fsys, "pkg/a.py", "pkg/b.py", "pkg/sub/deep/c.py"))
	got, err := Map(context.Background(), fsys)
	require.NoError(t, err)
	names := map[string][]string{}
	for _, p := range got.Packages {
		for _, f := range p.Files {
			for _, s := range f.Symbols {
				names[f.Path] = append(names[f.Path], s.Name)
			}
		}
	}
	assert.Equal(t, map[string][]string{"pkg/a.py": {"new"}, "pkg/b.py": {"kept"}, "pkg/sub/deep/c.py": {"C"}}, names)
	_, err = fs.Stat(fsys, "../escape.py")
	require.Error(t, err)
	_, err = fs.Stat(fsys, "pkg/gone.py")
	require.ErrorIs(t, err, fs.ErrNotExist)
}

// TestMapRequest maps a request as a domain service's repo_map would: the
// checkout on disk, the artifacts over it.
func TestMapRequest(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.rs"), []byte("fn old() {}\n"), 0o644))
	got, err := MapRequest(context.Background(), domain.Request{Repository: domain.Repository{Path: dir},
		Artifacts: []domain.Artifact{{Path: "a.rs", Content: "pub fn new() {}\n"}}})
	require.NoError(t, err)
	require.Len(t, got.Packages, 1)
	require.Len(t, got.Packages[0].Files, 1)
	assert.Equal(t, "pub fn new()", got.Packages[0].Files[0].Symbols[0].Signature)

	_, err = MapRequest(context.Background(), domain.Request{})
	require.Error(t, err)
}
