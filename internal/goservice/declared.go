package goservice

import (
	"path"
	"strings"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/testverdict"
)

// testDeclarations answers simulate's declared_tests (Extension API 1.4):
// the tests the _test.go files among paths declare in the workspace as
// the request laid it out. It runs before any test binary: code under
// test could rewrite its test files. A path that is absent (deleted, or
// new in the change on the base tree) or unreadable declares nothing.
func testDeclarations(ws *workspace, paths []string) []domain.TestDeclaration {
	out := []domain.TestDeclaration{}
	for _, p := range paths {
		p = path.Clean(p)
		if !strings.HasSuffix(p, "_test.go") || !ws.isFile(p) {
			continue
		}
		src, err := ws.readFile(p)
		if err != nil {
			continue
		}
		out = append(out, testverdict.GoDeclarations(p, string(src))...)
	}
	return out
}
