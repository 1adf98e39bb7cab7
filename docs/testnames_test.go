package docs_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// namedTest is a test or benchmark a document cites as evidence.
	namedTest = regexp.MustCompile(`\b((?:Test|Benchmark)[A-Z][A-Za-z0-9_]*)\b`)
	// declaredTest is the declaration of a test or benchmark function.
	declaredTest = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark)[A-Za-z0-9_]+)\(`)
)

// TestDocumentedTestsExist: README.md, docs/*.md and benchmarks/README.md
// cite tests and benchmarks as proof of what they claim ("enforced by
// TestDemoPipeline"); each one cited must be declared somewhere, so a
// renamed test cannot leave a claim without its proof. docs/security.md's
// table has its own, stricter test; docs/spec.md's names are examples.
func TestDocumentedTestsExist(t *testing.T) {
	root := moduleRoot(t)
	declared := map[string]bool{}
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// testdata holds the fixture repositories whose own tests
			// documents cite too.
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		for _, m := range declaredTest.FindAllStringSubmatch(string(data), -1) {
			declared[m[1]] = true
		}
		return nil
	})
	require.NoError(t, err)
	require.True(t, declared["TestDocumentedTestsExist"], "the scan found no test: is the module root right?")

	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	docs = append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "benchmarks", "README.md"))
	for _, p := range docs {
		if filepath.Base(p) == "spec.md" {
			continue // the product specification: its tests are examples
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range namedTest.FindAllStringSubmatch(line, -1) {
				name := m[1]
				if name == "TestAssert" || name == "TestRedTeam" || len(name) == len("TestA") {
					continue // a family named by its prefix, or a placeholder (TestA, TestX)
				}
				if foreignTests[name] {
					continue
				}
				assert.True(t, declared[name], "%s:%d cites %s, which no *_test.go declares", path.Base(filepath.ToSlash(p)), i+1, name)
			}
		}
	}
}

// foreignTests are tests of the public projects the real-repository
// benchmark ran (pflag's TestIP, dominikbraun/graph's flaky
// TestUndirectedShortestPath, testify's TestFileExists), cited by the docs
// as what they are.
var foreignTests = map[string]bool{
	"TestFileExists":             true,
	"TestIP":                     true,
	"TestIPNilDefault":           true,
	"TestUndirectedShortestPath": true,
}
