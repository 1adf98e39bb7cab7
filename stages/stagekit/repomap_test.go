package stagekit

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogworks/cogworks/domain"
)

// TestExportedSignaturesFollowTheLanguage: the map's "exported only"
// level and the package skeletons keep a symbol by its own language's rule
// (langmap.Exported). Under Go's upper-case rule, which they used before,
// every Python, TypeScript, Rust and Java function below was dropped and
// Python's _private and Rust's non-pub Helper were kept.
func TestExportedSignaturesFollowTheLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		file      string
		symbols   []domain.Symbol
		kept, cut []string
	}{
		{name: "python", file: "src/calc/ops.py", symbols: []domain.Symbol{
			{Kind: "func", Name: "add", Signature: "def add(a, b)"},
			{Kind: "func", Name: "_round", Signature: "def _round(x)"},
			{Kind: "func", Name: "Helper", Signature: "def Helper()"},
		}, kept: []string{"def add(a, b)", "def Helper()"}, cut: []string{"def _round(x)"}},
		{name: "typescript", file: "web/cart.ts", symbols: []domain.Symbol{
			{Kind: "func", Name: "total", Signature: "export function total(items: Item[]): number"},
			{Kind: "func", Name: "Fmt", Signature: "function Fmt(n: number): string"},
		}, kept: []string{"export function total(items: Item[]): number"}, cut: []string{"function Fmt(n: number): string"}},
		{name: "rust", file: "src/lib.rs", symbols: []domain.Symbol{
			{Kind: "func", Name: "parse", Signature: "pub fn parse(s: &str) -> Frame"},
			{Kind: "func", Name: "Helper", Signature: "fn Helper()"},
		}, kept: []string{"pub fn parse(s: &str) -> Frame"}, cut: []string{"fn Helper()"}},
		{name: "java", file: "src/main/java/a/Cart.java", symbols: []domain.Symbol{
			{Kind: "method", Name: "Cart.total", Signature: "public int total()"},
			{Kind: "method", Name: "Cart.Check", Signature: "private void Check()"},
		}, kept: []string{"public int total()"}, cut: []string{"private void Check()"}},
		{name: "go keeps the upper-case rule", file: "calc/calc.go", symbols: []domain.Symbol{
			{Kind: "func", Name: "Add", Signature: "func Add(a, b int) int"},
			{Kind: "func", Name: "round", Signature: "func round(x int) int"},
		}, kept: []string{"func Add(a, b int) int"}, cut: []string{"func round(x int) int"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pkg := domain.MapPackage{Dir: "p", Name: "p", ImportPath: "p", Files: []domain.MapFile{{Path: tt.file, Lines: 9, Symbols: tt.symbols}}}
			skeleton := PackageSkeleton(pkg)
			listed := symbolMap(&domain.RepoMapResult{Packages: []domain.MapPackage{pkg}}, mapExported)
			for _, sig := range tt.kept {
				assert.Contains(t, skeleton, sig)
				assert.Contains(t, listed, sig)
			}
			for _, sig := range tt.cut {
				assert.NotContains(t, skeleton, sig)
				assert.NotContains(t, listed, sig)
			}
		})
	}
}

// TestMapHeadingNamesTheLanguage: a Go map keeps its heading; a map with
// another language's files is not called Go.
func TestMapHeadingNamesTheLanguage(t *testing.T) {
	t.Parallel()
	goMap := &domain.RepoMapResult{Packages: []domain.MapPackage{{Files: []domain.MapFile{{Path: "a/a.go"}}}}}
	pyMap := &domain.RepoMapResult{Packages: []domain.MapPackage{{Files: []domain.MapFile{{Path: "a/a.go"}, {Path: "b/b.py"}}}}}
	assert.Contains(t, RenderRepoMap(nil, goMap), "\nGo packages and declarations")
	assert.Contains(t, RenderRepoMap(nil, pyMap), "\nPackages and declarations")
}
