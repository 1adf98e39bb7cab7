package xval

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseInterface feeds arbitrary text to the interface registry's TOML
// loader (.cogworks/interfaces/*.toml is repository content). Properties:
// no panic; parsing is deterministic; an accepted definition has an id and
// every parameter is stored under its own name.
func FuzzParseInterface(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.toml"))
	require.NoError(f, err)
	good, err := filepath.Glob(filepath.Join(goodDir, "*.toml"))
	require.NoError(f, err)
	for _, p := range append(files, good...) {
		data, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(data))
	}
	f.Add("id = \"X\"\n[parameters.a]\ntype = \"tolerance\"\nnominal = nan\nmin = inf\nmax = -inf\n")
	// ParseInterface compiles the schema on every call; compile it once so
	// the time goes to the parser.
	schema, err := compileSchema()
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, text string) {
		iface, err := parseInterface(schema, "fuzz.toml", []byte(text))
		again, err2 := parseInterface(schema, "fuzz.toml", []byte(text))
		require.Equal(t, err == nil, err2 == nil, "parsing must be deterministic")
		if err != nil {
			require.Equal(t, err.Error(), err2.Error(), "parsing must be deterministic")
			return
		}
		require.Equal(t, iface, again)
		require.NotEmpty(t, iface.ID)
		for name, p := range iface.Parameters {
			require.Equal(t, name, p.Name)
		}
	})
}
