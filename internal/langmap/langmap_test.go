package langmap

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMapGolden maps each testdata/<language> repository and compares the
// result with testdata/<language>.golden.json; UPDATE=1 rewrites the
// golden files. Each repository holds the tricky cases of its language:
// declarations inside strings and comments, decorators and annotations,
// multi-line signatures, nested classes, generics, export default.
func TestMapGolden(t *testing.T) {
	for _, lang := range []string{"python", "typescript", "rust", "java"} {
		t.Run(lang, func(t *testing.T) {
			got, err := Map(context.Background(), os.DirFS(filepath.Join("testdata", lang)))
			require.NoError(t, err)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false) // keep -> and <T> readable in the golden files
			enc.SetIndent("", "  ")
			require.NoError(t, enc.Encode(got))
			b := buf.Bytes()
			golden := filepath.Join("testdata", lang+".golden.json")
			if os.Getenv("UPDATE") != "" {
				require.NoError(t, os.WriteFile(golden, b, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.True(t, bytes.Equal(want, b), "%s differs; run with UPDATE=1 and review the diff:\n%s", golden, b)
		})
	}
}
