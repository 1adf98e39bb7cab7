package testenv

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPurePackagesImportNoIO keeps the pure core pure (docs/spec.md §1): its
// non-test files import no network, process, file-system or GitHub code.
func TestPurePackagesImportNoIO(t *testing.T) {
	forbidden := []string{"net", "net/http", "os", "os/exec", "io/ioutil", "syscall",
		"github.com/google/go-github", "github.com/cogworks/cogworks/internal/github", "github.com/cogworks/cogworks/internal/githubsim",
		"github.com/cogworks/cogworks/internal/engine", "github.com/cogworks/cogworks/internal/llm", "github.com/cogworks/cogworks/domain"}
	// Paths from this directory: the card's pure core is at the top level,
	// the other pure packages under internal/.
	for _, pkg := range []string{"../../pipeline", "../../classify", "../../planner", "../../review", "../audit", "../cifeedback", "../commands", "../secrets"} {
		t.Run(filepath.Base(pkg), func(t *testing.T) {
			dir := filepath.FromSlash(pkg)
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			for _, e := range entries {
				name := e.Name()
				if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
					continue
				}
				f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
				require.NoError(t, err)
				for _, imp := range f.Imports {
					path, _ := strconv.Unquote(imp.Path.Value)
					for _, bad := range forbidden {
						assert.False(t, path == bad || strings.HasPrefix(path, bad+"/"), "%s/%s imports %s", pkg, name, path)
					}
				}
			}
		})
	}
}
