package langmap

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOverlay maps a checkout with a stage's artifacts laid over it: an
// edited file reads as edited, a file in a new directory appears, the
// rest reads from the checkout.
func TestOverlay(t *testing.T) {
	base := fstest.MapFS{
		"pkg/__init__.py": {},
		"pkg/a.py":        {Data: []byte("def old(): pass\n")},
		"pkg/b.py":        {Data: []byte("def kept(): pass\n")},
	}
	fsys := Overlay(base, map[string]string{
		"pkg/a.py":          "def new(): pass\n",
		"pkg/sub/deep/c.py": "class C: pass\n",
		"../escape.py":      "def no(): pass\n",
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
}
