package testverdict

import (
	"path"
	"strings"

	"github.com/cogworks/cogworks/domain"
)

// Declarations come from the domain service that runs the tests
// (SimulateResult.DeclaredTests, Extension API 1.4): it knows its
// language's test conventions and how its runner names each test. Go test
// files are also read here (GoDeclarations), for the Go service to answer
// with and for services that declare nothing.

// Decls converts a service's declarations; a declaration's Package is
// the Decl's Dir (a Go directory, a Python file, a Java class, or "" for
// any).
func Decls(ds []domain.TestDeclaration) []Decl {
	out := make([]Decl, 0, len(ds))
	for _, d := range ds {
		out = append(out, Decl{Dir: d.Package, Name: d.Name})
	}
	return out
}

// GoDeclarations returns the tests a Go test file declares (TestFuncs)
// with the lines of each declaration, as the Go service reports them.
func GoDeclarations(file, content string) []domain.TestDeclaration {
	decls, src := testFuncs(file, content)
	out := make([]domain.TestDeclaration, 0, len(decls))
	for _, d := range decls {
		body := src[d.Name]
		start := strings.Index(content, body)
		line := strings.Count(content[:max(start, 0)], "\n") + 1
		out = append(out, domain.TestDeclaration{File: file, Name: d.Name, Package: d.Dir,
			Line: line, EndLine: line + strings.Count(body, "\n")})
	}
	return out
}

// DeclaredIn returns the declarations of ds that are file's.
func DeclaredIn(ds []domain.TestDeclaration, file string) []domain.TestDeclaration {
	var out []domain.TestDeclaration
	for _, d := range ds {
		if path.Clean(d.File) == path.Clean(file) {
			out = append(out, d)
		}
	}
	return out
}

// RewrittenDecls returns the tests now declares (in nowContent) whose
// declaration is new or whose lines differ from the same test's in
// before (in oldContent): the tests the change itself wrote.
func RewrittenDecls(before []domain.TestDeclaration, oldContent string, now []domain.TestDeclaration, nowContent string) []Decl {
	old := map[Decl]string{}
	for _, d := range before {
		old[Decl{Dir: d.Package, Name: d.Name}] = declLines(oldContent, d)
	}
	var out []Decl
	for _, d := range now {
		k := Decl{Dir: d.Package, Name: d.Name}
		if src, ok := old[k]; !ok || src != declLines(nowContent, d) {
			out = append(out, k)
		}
	}
	return out
}

// declLines is the text of a declaration's lines ("" when they are out
// of range, which then never equals a real declaration).
func declLines(content string, d domain.TestDeclaration) string {
	lines := strings.Split(content, "\n")
	end := max(d.EndLine, d.Line)
	if d.Line < 1 || end > len(lines) {
		return ""
	}
	return strings.Join(lines[d.Line-1:end], "\n")
}

// nameMatches reports whether a reported test is the declared top-level
// test: the same name, or one run of it as runners name them — a pytest
// or JUnit parameter set (name[1-2], name(int)[1]), a libtest path
// reported with fewer or more module segments (tests::adds), a jest
// title path written with spaces where the declaration has " > ", or
// node --test's innermost title.
// Go's names never carry these separators: a Go test matches exactly.
func nameMatches(reported, declared string) bool {
	if reported == declared {
		return true
	}
	if strings.HasPrefix(reported, declared) && strings.ContainsRune("[(", rune(reported[len(declared)])) {
		return true
	}
	if strings.HasSuffix(declared, "::"+reported) || strings.HasSuffix(reported, "::"+declared) {
		return true
	}
	if !strings.Contains(declared, " > ") {
		return false
	}
	// jest-junit joins the describe titles with spaces; node --test names
	// the test by its own title (the describe is its <testsuite>).
	return reported == strings.ReplaceAll(declared, " > ", " ") || reported == declared[strings.LastIndex(declared, " > ")+3:]
}

// samePackage reports whether a reported test's package is the declared
// one: InDir's rule, or a Python file reported as its dotted module (a
// JUnit report without file names: classname tests.test_calc or
// tests.test_calc.TestCalc for tests/test_calc.py), or a file reported
// relative to a sub-project (src/cart.test.ts for web/src/cart.test.ts),
// or a declared file whose run is reported under no file or module.
func samePackage(reported, declared string) bool {
	if InDir(reported, declared) {
		return true
	}
	if strings.HasSuffix(declared, ".py") {
		mod := strings.ReplaceAll(strings.TrimSuffix(declared, ".py"), "/", ".")
		for m := mod; m != ""; {
			if reported == m || strings.HasPrefix(reported, m+".") {
				return true
			}
			_, rest, ok := strings.Cut(m, ".") // src.calc.tests… → calc.tests…
			if !ok {
				break
			}
			m = rest
		}
	}
	if strings.Contains(reported, "/") && strings.HasSuffix(declared, "/"+strings.TrimPrefix(reported, "./")) {
		return true
	}
	// A declared file (not a Go directory) reported under a package that
	// names no file or module — node --test's classname "test", jest's
	// describe titles — cannot be compared: the name decides.
	return path.Ext(declared) != "" && !strings.ContainsAny(reported, "/.")
}

// runOf reports whether t is a run of the declared test d.
func runOf(t domain.TestResult, d Decl) bool {
	return nameMatches(t.Name, d.Name) && samePackage(t.Package, d.Dir)
}
