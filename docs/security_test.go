package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableTest is a test named in a cell of a Markdown table, in backticks.
var tableTest = regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`")

// TestSecurityAttackTableNamesRealTests keeps docs/security.md's promise
// that every attack in its table is reproduced by a test: each row names at
// least one test, and every test it names is declared in the repository.
func TestSecurityAttackTableNamesRealTests(t *testing.T) {
	root := moduleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "docs", "security.md"))
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(data), "## Attacks and the layer that stops each")
	require.True(t, ok, "docs/security.md has no attack table")
	table, _, _ = strings.Cut(table, "\n## ")

	idx, err := scanTests(os.DirFS(root))
	require.NoError(t, err)
	rows := 0
	for i, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| attack ") {
			continue
		}
		rows++
		cells := strings.Split(line, " | ")
		names := tableTest.FindAllStringSubmatch(cells[len(cells)-1], -1)
		if !assert.NotEmpty(t, names, "attack table line %d names no test: %s", i+1, line) {
			continue
		}
		for _, m := range names {
			if strings.HasPrefix(m[1], "Fuzz") {
				continue // fuzz targets are indexed by go test -list, not here
			}
			assert.Contains(t, idx.funcs, m[1], "attack table line %d names %s, which no *_test.go declares", i+1, m[1])
		}
	}
	assert.GreaterOrEqual(t, rows, 40, "the attack table lost rows")
}
