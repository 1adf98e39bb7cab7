package codegen_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// bigGoFile is a Go file of funcs small functions of ten lines each, a
// method T.Target, a 300-line table function Table and a caller of
// Target.
func bigGoFile(funcs int) string {
	var b strings.Builder
	b.WriteString("package lib\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n// T is a thing.\ntype T struct{ n int }\n\n")
	for i := range funcs {
		fmt.Fprintf(&b, "// Helper%03d helps.\nfunc Helper%03d(s string) string {\n", i, i)
		for j := range 7 {
			fmt.Fprintf(&b, "\ts = strings.Repeat(s, %d) // helper %d line %d\n", j, i, j)
		}
		b.WriteString("\treturn fmt.Sprint(s)\n}\n\n")
	}
	b.WriteString("// Target is what the plan names.\nfunc (t *T) Target() int {\n\treturn t.n + 1 // TARGET-BODY\n}\n\n")
	b.WriteString("func Table() []string {\n\treturn []string{\n")
	for i := range 300 {
		fmt.Fprintf(&b, "\t\t\"row %03d\",\n", i)
	}
	b.WriteString("\t\t\"LAST-ROW\",\n\t}\n}\n\n")
	b.WriteString("func useTarget() int {\n\tvar t T\n\treturn t.Target() // CALLER\n}\n\n")
	b.WriteString("func last() {\n\t_ = 1 // LAST-1\n\t_ = 2 // LAST-2\n\t_ = 3 // LAST-3\n\t_ = 4 // LAST-4\n\t_ = 5 // LAST-5\n\t_ = 6 // LAST-6\n}\n")
	return b.String()
}

func TestFocusViewShowsWhatThePlanNames(t *testing.T) {
	t.Parallel()
	src := bigGoFile(80)
	tests := []struct {
		name      string
		path      string
		symbols   []string
		contains  []string
		elides    []string
		wantWhole bool
	}{
		{
			name: "a method by its name, its callers and the map of the file", path: "lib/lib.go", symbols: []string{"T.Target"},
			contains: []string{
				"package lib\n\nimport (\n\t\"fmt\"\n", "// Target is what the plan names.\nfunc (t *T) Target() int {\n\treturn t.n + 1 // TARGET-BODY\n}\n",
				"return t.Target() // CALLER", "func Helper000(s string) string {\n", "func Helper079(s string) string {\n",
				"}\n\nfunc Table() []string {\n",
			},
			elides: []string{"helper 40 line 3", "row 150"},
		},
		{
			name: "a large declaration by its head and tail", path: "lib/lib.go", symbols: []string{"Table"},
			contains: []string{"func Table() []string {\n\treturn []string{\n\t\t\"row 000\",\n", "\t\t\"LAST-ROW\",\n\t}\n}\n"},
			elides:   []string{"row 150", "helper 40 line 3"},
		},
		{
			name: "a line of any file that names a symbol", path: "testdata/diffs", symbols: []string{"TestDiff/Reporter/LargeMapKey"},
			contains: []string{"<<< TestDiff/Reporter/LargeMapKey\nline 100\n"},
			elides:   []string{"line 050\n"},
		},
		{
			name: "no symbol: head, tail and the declarations' first lines", path: "lib/lib.go",
			contains: []string{"func Helper042(s string) string {\n", "\nfunc last() {\n\t_ = 1 // LAST-1\n"},
			elides:   []string{"TARGET-BODY", "helper 42 line 1"},
		},
	}
	diffs := func() string {
		var b strings.Builder
		for i := range 400 {
			if i == 100 {
				b.WriteString("<<< TestDiff/Reporter/LargeMapKey\n")
			}
			fmt.Fprintf(&b, "line %03d\n", i)
		}
		return b.String()
	}()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			content := src
			if tt.path == "testdata/diffs" {
				content = diffs
			}
			view := codegen.FocusView(tt.path, content, tt.symbols)
			for _, s := range tt.contains {
				assert.True(t, strings.Contains(view, s), "the view shows %q", s)
			}
			for _, s := range tt.elides {
				assert.False(t, strings.Contains(view, s), "the view leaves out %q", s)
			}
			assert.Contains(t, view, codegen.FocusMarkerStart, "left-out lines are marked")
			assert.Less(t, llm.EstimateTokens(view), llm.EstimateTokens(content)/3, "the view is a fraction of the file")
			// Every shown line is the file's, in order: an edit can quote it.
			rest := content
			for _, l := range strings.SplitAfter(view, "\n") {
				if l == "" || strings.HasPrefix(l, codegen.FocusMarkerStart) {
					continue
				}
				i := strings.Index(rest, l)
				require.GreaterOrEqual(t, i, 0, "shown line %q is not the file's, in order", l)
				rest = rest[i+len(l):]
			}
		})
	}
}

func TestFocusTargetsKeepsFilesWholeWhileTheyFit(t *testing.T) {
	t.Parallel()
	small := contextpack.Item{Kind: "file-to-edit", Path: "small.go", Content: bigGoFile(5)}
	big := contextpack.Item{Kind: "file-to-edit", Path: "big.go", Content: bigGoFile(60)}
	bigger := contextpack.Item{Kind: "file-to-edit", Path: "bigger_test.go", Content: bigGoFile(130)}
	iface := contextpack.Item{Kind: "interface", Path: "iface.go", Content: bigGoFile(130)}
	require.Greater(t, llm.EstimateTokens(big.Content)+llm.EstimateTokens(bigger.Content), codegen.MaxTargetTokens)
	require.Less(t, llm.EstimateTokens(big.Content), codegen.MaxTargetTokens)

	tests := []struct {
		name      string
		in        []contextpack.Item
		wantWhole []string
	}{
		{"files that fit stay whole", []contextpack.Item{small, big}, []string{"small.go", "big.go"}},
		{"the largest file is focused first", []contextpack.Item{small, big, bigger}, []string{"small.go", "big.go"}},
		{"only files to edit are focused", []contextpack.Item{iface, big}, []string{"iface.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := codegen.FocusTargets(tt.in, []string{"Target"})
			require.Len(t, out, len(tt.in))
			for i, it := range out {
				whole := it.Content == tt.in[i].Content
				assert.Equal(t, contains(tt.wantWhole, it.Path), whole, "%s shown whole", it.Path)
				if !whole {
					assert.True(t, strings.Contains(it.Content, "TARGET-BODY"), "the focused view keeps what the plan names")
				}
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Two files to edit of ~22k tokens each (cobra's command.go and
// command_test.go) made a 45k-token prompt for a 4-line fix.
func TestCodegenContextFocusesLargeFilesToEdit(t *testing.T) {
	t.Parallel()
	ws := stagetest.WriteTree(t, map[string]string{
		"go.mod": "module example.com/lib\n", "lib.go": bigGoFile(100), "lib_test.go": strings.ReplaceAll(bigGoFile(130), "Helper", "TestHelper"),
	})
	snap := pipeline.NewSnapshot("o/r", 1)
	e := codegen.Executor{Deps: codegen.Deps{Deps: stagekit.Deps{Workspace: ws}}}
	in := engine.StageInput{Snapshot: &snap, Config: config.Default()}
	item := planner.SubWorkItem{ID: "fix", Files: []string{"lib.go", "lib_test.go"}, Symbols: []string{"T.Target"}}
	r := codegen.SWIRun{Item: item, Base: codegen.BaseTree{Repo: contextpack.LocalRepo{Dir: ws}, Overlay: map[string]string{}}}

	cx, err := e.ContextItems(context.Background(), in, r)
	require.NoError(t, err)
	require.Len(t, cx.Targets, 2)
	total := 0
	for _, it := range cx.Targets {
		total += llm.EstimateTokens(it.Content)
		assert.True(t, strings.Contains(it.Content, "TARGET-BODY"), "%s: the named method is shown", it.Path)
	}
	assert.LessOrEqual(t, total, codegen.MaxTargetTokens, "the files to edit fit their budget")
	assert.True(t, strings.Contains(cx.Targets[0].Content, "helper 50 line 3"), "lib.go, the smaller, is whole")
	assert.True(t, strings.Contains(cx.Targets[1].Content, codegen.FocusMarkerStart), "lib_test.go, the larger, is focused")
}

// A large Python file to edit is focused as a Go one is: every top-level
// declaration's first line maps the file, the plan's symbol is shown with
// its neighbourhood, the rest is left out with a marker (issue 27: the
// focus only knew Go declarations).
func TestFocusViewMapsPythonDeclarations(t *testing.T) {
	var b strings.Builder
	b.WriteString("import os\nfrom typing import Any\n\n\n")
	for i := range 40 {
		fmt.Fprintf(&b, "def helper_%d(v: int) -> int:\n    # a comment\n    x = v + %d\n", i, i)
		for j := range 12 {
			fmt.Fprintf(&b, "    x = x * 2 + %d\n", j)
		}
		b.WriteString("    return x\n\n\n")
	}
	b.WriteString("class Calculator:\n    def add(self, a, b):\n        return a + b\n")
	view := codegen.FocusView("src/pkg/calc.py", b.String(), []string{"helper_20"})
	for _, want := range []string{"def helper_0(v: int) -> int:\n", "def helper_39(v: int) -> int:\n", "class Calculator:\n",
		"    x = v + 20\n", codegen.FocusMarkerStart} {
		assert.Contains(t, view, want)
	}
	assert.NotContains(t, view, "    x = v + 5\n", "a body the plan does not name is left out")
	assert.Less(t, len(view), b.Len()/2)
}
