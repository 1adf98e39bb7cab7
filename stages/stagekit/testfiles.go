package stagekit

import (
	"path"
	"strings"
)

// The test-file conventions of the languages CogWorks knows, used where a
// stage must tell a test from the code it tests without a domain
// service's help: Go's x_test.go; Python's test_x.py and x_test.py and a
// tests/ directory (pytest's discovery); TypeScript/JavaScript's
// x.test.ts, x.spec.ts and __tests__/ (jest, vitest).

// jsExts are the TypeScript/JavaScript source types.
var jsExts = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"}

// IsTestFile reports whether p (repository-relative, slash-separated)
// follows a test-file convention.
func IsTestFile(p string) bool {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	dirs := "/" + path.Dir(p) + "/"
	switch {
	case ext == ".go":
		return strings.HasSuffix(stem, "_test")
	case ext == ".py":
		return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest" ||
			strings.Contains(dirs, "/tests/") || strings.Contains(dirs, "/test/")
	case isJS(ext):
		return strings.HasSuffix(stem, ".test") || strings.HasSuffix(stem, ".spec") || strings.Contains(dirs, "/__tests__/")
	}
	return false
}

// SiblingTests returns the paths a test of source file p conventionally
// has, most usual first; none for a test file or an unknown type. Go's is
// the one x_test.go beside x.go.
func SiblingTests(p string) []string {
	p = path.Clean(p)
	if IsTestFile(p) {
		return nil
	}
	dir, base := path.Split(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	switch {
	case ext == ".go":
		return []string{dir + stem + "_test.go"}
	case ext == ".py":
		out := []string{dir + "test_" + stem + ".py", dir + stem + "_test.py", "tests/test_" + stem + ".py"}
		if d := strings.TrimSuffix(dir, "/"); d != "" {
			out = append(out, d+"/tests/test_"+stem+".py")
		}
		return out
	case isJS(ext):
		return []string{dir + stem + ".test" + ext, dir + stem + ".spec" + ext, dir + "__tests__/" + stem + ".test" + ext}
	}
	return nil
}

func isJS(ext string) bool {
	for _, e := range jsExts {
		if ext == e {
			return true
		}
	}
	return false
}
