package stages_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/planning"
	"github.com/cogworks/cogworks/stages/review"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// chainMap is root → a → b → c → d by imports, e on its own, and x
// importing root.
func chainMap() *domain.RepoMapResult {
	pkg := func(dir string, imports ...string) domain.MapPackage {
		ip := "m"
		if dir != "." {
			ip = "m/" + dir
		}
		return domain.MapPackage{Dir: dir, ImportPath: ip, Name: dir, Imports: append(imports, "fmt"), Files: []domain.MapFile{
			{Path: strings.TrimPrefix(dir+"/f.go", "./"), Lines: 3, Symbols: []domain.Symbol{
				{Kind: "func", Name: "Exported", Signature: "func Exported()", Line: 2},
				{Kind: "func", Name: "hidden", Signature: "func hidden()", Line: 3},
			}},
			{Path: strings.TrimPrefix(dir+"/f_test.go", "./"), Test: true, Lines: 5},
		}}
	}
	return &domain.RepoMapResult{Module: "m", Packages: []domain.MapPackage{
		pkg(".", "m/a"), pkg("a", "m/b"), pkg("b", "m/c"), pkg("c", "m/d"), pkg("d"), pkg("e"), pkg("x", "m"),
	}}
}

func TestPackageDistancesFollowImportsBothWays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		from []string
		want map[string]int
	}{
		{"from the root package", []string{"."}, map[string]int{".": 0, "a": 1, "x": 1, "b": 2, "c": 3, "d": 4}},
		{"from a leaf", []string{"d"}, map[string]int{"d": 0, "c": 1, "b": 2, "a": 3, ".": 4, "x": 5}},
		{"from two packages", []string{"b", "x"}, map[string]int{"b": 0, "x": 0, ".": 1, "a": 1, "c": 1, "d": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, stagekit.PackageDistances(chainMap(), tt.from))
		})
	}
}

func TestMapNeighboursRankByImportDistance(t *testing.T) {
	t.Parallel()
	repo := stagetest.MemRepo{}
	for _, p := range chainMap().Packages {
		for _, f := range p.Files {
			repo[f.Path] = "// content of " + f.Path + "\n"
		}
	}
	items, err := codegen.MapNeighbours(context.Background(), codegen.BaseTree{Repo: repo}, chainMap(), codegen.ChangeFocus{Dirs: []string{"."}, Targets: []string{"f.go"}, Shown: map[string]bool{"f.go": true}})
	require.NoError(t, err)
	got := map[string]string{}
	dist := map[string]int{}
	for _, it := range items {
		got[it.Path] = string(it.Kind)
		dist[it.Path] = it.Distance
		assert.Equal(t, contextpack.PriorityOther, it.Priority)
	}
	assert.Equal(t, map[string]string{
		"f_test.go":     "file", // beside the file to edit
		"a/f.go":        "file", // imported by the root package
		"x/f.go":        "file", // imports the root package
		"b (package b)": "skeleton",
		"c (package c)": "skeleton",
	}, got, "d is four imports away and e unconnected; other packages' tests are left out")
	assert.Equal(t, 1, dist["a/f.go"])
	assert.Equal(t, 3, dist["c (package c)"])
	for _, it := range items {
		if it.Kind == "skeleton" {
			assert.Contains(t, it.Content, "func Exported()")
			assert.NotContains(t, it.Content, "hidden", "skeletons are the exported API")
		}
	}
}

func TestExcludedContext(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"go.sum": true, "sub/package-lock.json": true, "testdata/x.go": true, "a/testdata/big.txt": true,
		"fixtures/f.json": true, "vendor/m/m.go": true, ".cogworks/scenarios/s.toml": true,
		"big.go": false, "internal/fixtures.go": false, "testdata.go": false, "docs/style.md": false,
	} {
		assert.Equal(t, want, stagekit.ExcludedContext(p), p)
	}
}

func TestRenderRepoMapShrinksToFit(t *testing.T) {
	t.Parallel()
	small := stagekit.RenderRepoMap([]string{"go.mod", "f.go"}, chainMap())
	assert.Contains(t, small, "Files:\ngo.mod\nf.go\n")
	assert.Contains(t, small, "package . (dir ., import m)", "the root package is mapped")
	assert.Contains(t, small, "    3: func hidden()", "unexported declarations when they fit")
	assert.NotContains(t, small, "f_test.go (5 lines)\n    ", "test files are listed without their symbols")

	big := chainMap()
	for i := range 4000 {
		big.Packages[0].Files[0].Symbols = append(big.Packages[0].Files[0].Symbols,
			domain.Symbol{Kind: "func", Name: "helper" + strings.Repeat("x", i%7), Signature: "func helperWithALongName(a, b, c int) error", Line: i})
	}
	shrunk := stagekit.RenderRepoMap([]string{"f.go"}, big)
	assert.NotContains(t, shrunk, "helperWithALongName", "past the budget unexported declarations go first")
	assert.Contains(t, shrunk, "func Exported()")

	huge := chainMap()
	for i := range 1500 {
		huge.Packages[0].Files[0].Symbols = append(huge.Packages[0].Files[0].Symbols,
			domain.Symbol{Kind: "func", Name: fmt.Sprintf("Exp%d", i), Signature: "func ExportedWithALongSignature(a, b, c int, opts ...Option) (Result, error)", Line: i})
	}
	names := stagekit.RenderRepoMap([]string{"f.go"}, huge)
	assert.NotContains(t, names, "ExportedWithALongSignature", "past the budget even exported signatures go")
	assert.Contains(t, names, "  f.go (3 lines): Exported, hidden, Exp0, Exp1,", "names stay, one line per file")

	assert.Equal(t, "Files:\nf.go\n", stagekit.RenderRepoMap([]string{"f.go"}, nil), "without a service: the file tree")
}

func TestTreeLinesCollapseFixtures(t *testing.T) {
	t.Parallel()
	got := planning.TreeLines([]string{"a.go", "testdata/1.json", "testdata/2.json", "vendor/x/y.go", "z/fixtures/q", "zz.go"})
	assert.Equal(t, []string{"a.go", "testdata/ (2 files, not shown)", "vendor/ (1 files, not shown)", "z/fixtures/ (1 files, not shown)", "zz.go"}, got)
}

func TestPlanningPromptHasRepoMapAndIssue(t *testing.T) {
	t.Parallel()
	f := stagetest.NewFHFixture(t, map[string]string{
		"root.go":       "package widgets\n\nimport \"example.com/widgets/counter\"\n\n// Total counts.\nfunc Total() int { return counter.Count }\n",
		"go.sum":        "example.com/x v1.0.0 h1:abc=\n",
		"testdata/a.in": "fixture\n",
	})
	f.Deps.Domain = stagetest.StartGoService(t)
	f.AddJSON(t, prompts.Planning, stagetest.GoodPlan)
	snap := f.PlanningSnapshot(t)
	_, err := f.Run(t, "planning", snap)
	require.NoError(t, err)
	p := f.UserPrompt(t, prompts.Planning, 0)
	assert.Contains(t, p, "hourly widget counter exposed through telemetry", "the issue body")
	assert.Contains(t, p, "Files:\n")
	assert.Contains(t, p, "\nroot.go\n", "the file tree")
	assert.Contains(t, p, "testdata/ (1 files, not shown)")
	assert.Contains(t, p, "package widgets (dir ., import example.com/widgets)", "the root package")
	assert.Contains(t, p, "6: func Total() int", "declarations with line numbers")
	assert.Contains(t, p, "brake/brake.go (5 lines)")
}

func TestReviewDiffsShowTheChangeNotTheFile(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	var big strings.Builder
	for i := range 500 {
		big.WriteString("line " + strings.Repeat("x", i%5) + "\n")
	}
	old := big.String() + "return lo\n" + big.String()
	env.Sim.SeedFiles(repo, "main", map[string]string{"big.go": old})
	diffs, err := review.ReviewDiffs(context.Background(), env.Client, github.Repo{Owner: testenv.Repo.Owner, Name: testenv.Repo.Name}, "main", []domain.Artifact{
		{Path: "big.go", Content: strings.Replace(old, "return lo", "return hi", 1)},
		{Path: "new.go", Content: "package a\n"},
	})
	require.NoError(t, err)
	require.Len(t, diffs, 2)
	assert.Equal(t, "--- a/big.go\n+++ b/big.go\n@@ -498,7 +498,7 @@\n line xx\n line xxx\n line xxxx\n-return lo\n+return hi\n line \n line x\n line xx\n", diffs[0].Content)
	assert.Equal(t, "--- /dev/null\n+++ b/new.go\n@@ -0,0 +1,1 @@\n+package a\n", diffs[1].Content)
}
