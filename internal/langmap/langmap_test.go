package langmap

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/testkit"
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
			testkit.Golden(t, filepath.Join("testdata", lang+".golden.json"), buf.String())
		})
	}
}
