package docs_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	// envLiteral is a COGWORKS_ variable named as a whole Go string
	// literal, which is how the code reads one (os.Getenv, a Getenv
	// field, a constant passed to them).
	envLiteral = regexp.MustCompile(`"(COGWORKS_[A-Z0-9_]*[A-Z0-9])"`)
	// envMention is a COGWORKS_ variable named in Markdown; a name that
	// ends in _ ("the COGWORKS_GITHUB_APP_* variables") is a family, not
	// a variable.
	envMention = regexp.MustCompile(`\bCOGWORKS_[A-Z0-9_]*[A-Z0-9]\b`)
)

// envNotForUsers are variables the code reads that no user sets.
var envNotForUsers = map[string]string{
	"COGWORKS_SANDBOX_INIT":     "set by the sandbox for its own re-executed init process",
	"COGWORKS_CLI_TEST_REEXEC":  "tests re-executing their own binary",
	"COGWORKS_SHARED_MODELS":    "tests sharing a module cache",
	"COGWORKS_E2E_KEEP":         "tests",
	"COGWORKS_GOSERVICE_REEXEC": "tests",
}

// docOnlyNames are COGWORKS_ names the docs use for something other than
// a variable CogWorks reads: repository secrets a workflow passes on.
var docOnlyNames = map[string]string{
	"COGWORKS_APP_ID":          "deployment.md: the repository secret holding the App id",
	"COGWORKS_APP_PRIVATE_KEY": "deployment.md: the repository secret holding the App key",
	"COGWORKS_INSTALLATION_ID": "deployment.md: the repository secret holding the installation id",
}

// TestEnvironmentVariablesAreDocumented keeps the environment CogWorks
// reads and the one its documentation names the same: every COGWORKS_
// variable the non-test code reads is named in README.md or docs/*.md,
// and every one they name is read by some Go code (the conformance suite's
// are read by its test).
func TestEnvironmentVariablesAreDocumented(t *testing.T) {
	root := moduleRoot(t)
	read, readByTests, err := scanEnvReads(os.DirFS(root))
	require.NoError(t, err)
	require.Contains(t, read, "COGWORKS_GITHUB_TOKEN", "the scan found no variable: is the module root right?")

	documented := map[string][]string{}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	for _, p := range append(docs, filepath.Join(root, "README.md")) {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for _, name := range envMention.FindAllString(string(data), -1) {
			documented[name] = append(documented[name], filepath.Base(p))
		}
	}

	for _, name := range sortedKeys(read) {
		if _, internal := envNotForUsers[name]; internal {
			continue
		}
		assert.Contains(t, documented, name, "%s is read by %s but named in neither README.md nor docs/*.md", name, read[name])
	}
	for _, name := range sortedKeys(documented) {
		if _, ok := docOnlyNames[name]; ok {
			continue
		}
		_, inCode := read[name]
		_, inTests := readByTests[name]
		assert.True(t, inCode || inTests, "%s is named in %v but no Go code reads it", name, documented[name])
	}
}

// scanEnvReads returns the COGWORKS_ variables named as string literals in
// the module's Go files, by the first file naming each: non-test files,
// then test files.
func scanEnvReads(fsys fs.FS) (code, tests map[string]string, err error) {
	code, tests = map[string]string{}, map[string]string{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return fs.SkipDir
			}
			return nil
		}
		if path.Ext(p) != ".go" {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		into := code
		if strings.HasSuffix(p, "_test.go") {
			into = tests
		}
		for _, m := range envLiteral.FindAllStringSubmatch(string(data), -1) {
			if _, ok := into[m[1]]; !ok {
				into[m[1]] = p
			}
		}
		return nil
	})
	return code, tests, err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
