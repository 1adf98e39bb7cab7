package codegen_test

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/stages"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// rootlibFiles reads testdata/rootlib.
func rootlibFiles(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	root := os.DirFS("../testdata/rootlib")
	require.NoError(t, fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(root, p)
		// A file gofmt would rewrite is stored as .unformatted so the
		// repository's own gofmt check passes; the fixture restores its name.
		files[strings.TrimSuffix(p, ".unformatted")] = string(b)
		return err
	}))
	return files
}

// newRootlibFixture seeds testdata/rootlib as the default branch and the
// workspace, files the issue and the plan item, with the real Go service.
func newRootlibFixture(t *testing.T) (*stagetest.BuildFixture, *stagetest.CountingDomain, map[string]string) {
	t.Helper()
	env := testenv.New(t)
	repo := testenv.Repo.String()
	base := rootlibFiles(t)
	env.Sim.SeedFiles(repo, "main", base)
	ws := t.TempDir()
	for p, c := range base {
		stagetest.WriteFile(t, ws, p, c)
	}
	parent := env.Sim.SeedIssue(repo, "alice", stagetest.RootlibIssueTitle, stagetest.RootlibIssueBody, pipeline.LabelRun)
	ib := fmt.Sprintf("cogworks/%d/interfaces", parent)
	env.Sim.SeedFiles(repo, ib, map[string]string{"doc.go": base["doc.go"]}) // nothing to design
	snap := pipeline.NewSnapshot(repo, parent)
	snap.Stage = pipeline.StageCodeGeneration
	snap.Artifacts.InterfaceBranch = ib
	it := stagetest.ClampItem()
	n := env.Sim.SeedIssue(repo, testenv.Bot, it.Title, it.Description, pipeline.LabelSubWorkItem, pipeline.StatusLabel(pipeline.SWIPending))
	snap.SubWorkItems = []pipeline.SWI{{SubWorkItem: it, Issue: n, Order: 1, Status: pipeline.SWIPending}}
	snap.Interfaces = []pipeline.InterfaceDecl{{ID: "IF-CLAMP", Name: "Clamp", File: "big.go", Summary: "existing API"}}
	dom := &stagetest.CountingDomain{Client: stagetest.StartGoService(t)}
	script := llm.NewScripted()
	cfg := config.Default()
	cfg.Budgets.SubWorkItemMaxRetries = 3
	f := &stagetest.BuildFixture{Env: env, Script: script, Cfg: cfg, Snap: &snap, Parent: parent,
		Deps: stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{LLM: llm.NewGateway(script, prompts.Set{}), Domain: dom, Workspace: ws, Clock: env.Clock.Now}}}
	return f, dom, base
}

func TestCodegenEditsLargeRootFileByteExact(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, dom, base := newRootlibFixture(t)
	outTokens := f.Answer(t, stagetest.ClampEdits(stagetest.ClampBug))

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)

	want := f.Env.Sim.BranchFiles(testenv.Repo.String(), "main")
	want["big.go"] = strings.Replace(base["big.go"], stagetest.ClampBug, stagetest.ClampFix, 1)
	want["big_test.go"] = strings.Replace(base["big_test.go"], stagetest.ClampTestAnchor, stagetest.ClampTest, 1)
	want["legacy.go"] = strings.Replace(base["legacy.go"], `"1.0.0"`, `"1.0.1"`, 1)
	got := f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assertSameTree(t, want, got)
	assert.Contains(t, got["legacy.go"], "func Legacy( a int )int{", "untouched bytes of an upstream file are not reformatted")
	assert.Equal(t, int32(2), dom.Simulations.Load(), "the fix's tests ran inside the pipeline, and once on the base (no test that passed there may go missing)")
	assert.Less(t, outTokens, 1000, "a 10-line change to a 2,000-line file costs under 1k output tokens")

	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 1)
	prompt := reqs[0]
	tokens := llm.EstimateTokens(prompt)
	own := llm.EstimateTokens(base["big.go"])
	t.Logf("code-generation prompt: %d tokens (the file to edit: %d); answer: %d tokens", tokens, own, outTokens)
	// The file to edit is shown whole whatever its size; what the packer
	// chooses around it (template, issue, neighbours, skeletons) is bounded.
	assert.LessOrEqual(t, tokens-own, 5000, "beyond the file to edit, the fix's prompt stays small")
	assert.Contains(t, prompt, stagetest.RootlibIssueTitle, "the issue title")
	assert.Contains(t, prompt, "ISSUEBODYMARKER", "the issue body")
	assert.Contains(t, prompt, base["big.go"], "the whole current content of the file to edit")
	assert.Contains(t, prompt, base["legacy.go"])
	assert.Contains(t, prompt, "symbols: Clamp")
	assert.Contains(t, prompt, "func Wrap(v int) string", "the package it imports (distance 1), whole")
	assert.Contains(t, prompt, "package deep // example.com/rootlib/internal/fmtx/deep (signatures only)", "two imports away: skeleton")
	assert.Contains(t, prompt, `const Left = "["`, "three imports away: skeleton")
	assert.NotContains(t, prompt, "unexportedDeep", "skeletons hold the exported API only")
	assert.NotContains(t, prompt, "FARAWAYMARKER", "beyond the horizon")
	assert.NotContains(t, prompt, "UNUSEDMARKER", "not in the import graph")
	assert.NotContains(t, prompt, "LOCKFILEMARKER", "never go.sum")
	assert.NotContains(t, prompt, "FIXTUREMARKER", "never testdata")
}

func TestCodegenEditThatDoesNotApplyGetsNearestLines(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, dom, base := newRootlibFixture(t)
	typo := "\tif v > hi {\n\t\treturn low\n\t}"
	f.Answer(t, stagetest.ClampEdits(typo))
	f.Answer(t, stagetest.ClampEdits(stagetest.ClampBug))

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err)

	reqs := f.Requests("code_generation")
	require.Len(t, reqs, 2)
	line := lineOf(t, base["big.go"], stagetest.ClampBug)
	fb := reqs[1]
	assert.Contains(t, fb, "big.go: edit 1: `old` does not occur in the file")
	assert.Contains(t, fb, fmt.Sprintf("lines %d-%d:", line, line+2), "where the nearest lines are")
	assert.Contains(t, fb, "    \t\treturn lo", "the nearest lines themselves, to copy")
	assert.Equal(t, int32(2), dom.Simulations.Load(), "the edit that did not apply cost no toolchain run (the other run is the base's)")
	got := f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent))
	assert.Equal(t, strings.Replace(base["big.go"], stagetest.ClampBug, stagetest.ClampFix, 1), got["big.go"])
}

// assertSameTree compares two trees file by file, byte for byte, naming
// the files that differ rather than printing whole trees.
func assertSameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		if assert.True(t, ok, "%s is missing", p) && w != g {
			t.Errorf("%s differs:\n%s", p, stagekit.UnifiedDiff(p, w, g))
		}
	}
	for p := range got {
		_, ok := want[p]
		assert.True(t, ok, "unexpected file %s", p)
	}
}

func TestCodegenRenamesAndDeletes(t *testing.T) {
	e2e.RequireToolchain(t)
	t.Parallel()
	f, dom, base := newRootlibFixture(t)
	f.Snap.SubWorkItems[0].Tests = "" // a refactoring: no test is planned
	f.Answer(t, codegen.CodeOutput{Notes: "move Name, drop Less",
		Renames: []codegen.CodeRename{{From: "names.go", To: "name.go"}},
		Edits:   []codegen.CodeEdit{{Path: "name.go", Old: "// Name returns the library name.", New: "// Name returns the library's name."}},
		Deletes: []string{"order.go"},
	})

	_, err := f.Run(t, pipeline.StageCodeGeneration)
	require.NoError(t, err, "the domain service saw names.go gone: Name is declared once")

	want := f.Env.Sim.BranchFiles(testenv.Repo.String(), "main")
	delete(want, "names.go")
	delete(want, "order.go")
	want["name.go"] = strings.Replace(base["names.go"], "library name", "library's name", 1)
	assertSameTree(t, want, f.Env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", f.Parent)))
	assert.Equal(t, int32(2), dom.Simulations.Load(), "the change, then the base")
	assert.Equal(t, []string{"name.go"}, f.Snap.SubWorkItem("clamp").Committed, "deleted paths are not recorded as the SWI's files")
}
