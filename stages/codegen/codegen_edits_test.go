package codegen_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagetest"
)

func TestApplyAnswer(t *testing.T) {
	t.Parallel()
	upstream := stagetest.MemRepo{
		"a.go":    "package a\n\nfunc A() int { return 1 }\n",
		"dup.go":  "x := 1\ny := 2\nx := 1\n",
		"old.go":  "package a\n\n// Old is renamed.\nfunc Old() {}\n",
		"gone.go": "package a\n",
	}
	base := codegen.BaseTree{Repo: upstream, Overlay: map[string]string{"mine.go": "package a\n\n// Mine is this SWI's earlier output.\n"}}
	tests := []struct {
		name        string
		out         codegen.CodeOutput
		wantFiles   map[string]string
		wantDeleted []string
		wantCreated []string
		wantProblem string
	}{
		{
			name:      "edit replaces the one occurrence",
			out:       codegen.CodeOutput{Edits: []codegen.CodeEdit{{Path: "a.go", Old: "return 1", New: "return 2"}}},
			wantFiles: map[string]string{"a.go": "package a\n\nfunc A() int { return 2 }\n"},
		},
		{
			name: "edits apply in order on the edited content",
			out: codegen.CodeOutput{Edits: []codegen.CodeEdit{
				{Path: "a.go", Old: "return 1", New: "return 2"},
				{Path: "a.go", Old: "return 2", New: "return 3"},
			}},
			wantFiles: map[string]string{"a.go": "package a\n\nfunc A() int { return 3 }\n"},
		},
		{
			name:        "old that occurs twice is refused with its lines",
			out:         codegen.CodeOutput{Edits: []codegen.CodeEdit{{Path: "dup.go", Old: "x := 1", New: "x := 3"}}},
			wantProblem: "dup.go: edit 1: `old` occurs 2 times (lines 1, 3)",
		},
		{
			name:        "empty old is refused",
			out:         codegen.CodeOutput{Edits: []codegen.CodeEdit{{Path: "a.go", Old: "", New: "x"}}},
			wantProblem: "a.go: edit 1: `old` is empty",
		},
		{
			name:        "edit of a missing file is refused",
			out:         codegen.CodeOutput{Edits: []codegen.CodeEdit{{Path: "nope.go", Old: "a", New: "b"}}},
			wantProblem: "nope.go: edit 1: the file does not exist",
		},
		{
			name:        "an upstream file cannot be rewritten whole",
			out:         codegen.CodeOutput{Files: []codegen.CodeFile{{Path: "a.go", Content: "package a\n"}}},
			wantProblem: "a.go: the file exists in the repository; change it with `edits`",
		},
		{
			name:        "new and own files are written whole",
			out:         codegen.CodeOutput{Files: []codegen.CodeFile{{Path: "new/b.go", Content: "package b\n"}, {Path: "mine.go", Content: "package a\n"}}},
			wantFiles:   map[string]string{"new/b.go": "package b\n", "mine.go": "package a\n"},
			wantCreated: []string{"mine.go", "new/b.go"},
		},
		{
			name: "rename then edit by the new path",
			out: codegen.CodeOutput{Renames: []codegen.CodeRename{{From: "old.go", To: "renamed.go"}},
				Edits: []codegen.CodeEdit{{Path: "renamed.go", Old: "func Old", New: "func Renamed"}}},
			wantFiles:   map[string]string{"renamed.go": "package a\n\n// Old is renamed.\nfunc Renamed() {}\n"},
			wantDeleted: []string{"old.go"},
			wantCreated: []string{"renamed.go"},
		},
		{
			name:        "rename onto an existing file is refused",
			out:         codegen.CodeOutput{Renames: []codegen.CodeRename{{From: "old.go", To: "a.go"}}},
			wantProblem: "a.go: rename: the target already exists",
		},
		{
			name:        "delete",
			out:         codegen.CodeOutput{Deletes: []string{"gone.go", "./mine.go"}},
			wantFiles:   map[string]string{},
			wantDeleted: []string{"gone.go", "mine.go"},
		},
		{
			name:        "delete of a missing file is refused",
			out:         codegen.CodeOutput{Deletes: []string{"nope.go"}},
			wantProblem: "nope.go: delete: the file does not exist",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, probs, err := codegen.ApplyAnswer(context.Background(), base, tt.out)
			require.NoError(t, err)
			if tt.wantProblem != "" {
				require.NotEmpty(t, probs)
				assert.Contains(t, codegen.EditFailure(probs).Render(1), tt.wantProblem)
				return
			}
			require.Empty(t, probs)
			assert.Equal(t, tt.wantFiles, cs.Files)
			assert.Equal(t, tt.wantDeleted, cs.Deleted)
			assert.ElementsMatch(t, tt.wantCreated, slices.Collect(maps.Keys(cs.Created)))
		})
	}
}

func TestNearestLinesFindsTheClosestRun(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "\tstep%d := compute(%d)\n", i, i)
	}
	b.WriteString("\tif v > hi {\n\t\treturn lo\n\t}\n")
	content := b.String()
	tests := []struct {
		name, search, want string
	}{
		{"typo inside a line", "\tif v > hi {\n\t\treturn low\n\t}", "lines 301-303:\n\tif v > hi {\n\t\treturn lo\n\t}"},
		{"indentation differs", "if v > hi {\n  return lo\n}", "lines 301-303:"},
		{"one line", "\tstep42 = compute(42)", "lines 42-42:\n\tstep42 := compute(42)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Contains(t, codegen.NearestLines(content, tt.search), tt.want)
		})
	}
}

func TestEditFailureFeedbackShowsNearestLines(t *testing.T) {
	t.Parallel()
	f := codegen.EditFailure([]codegen.EditProblem{{Path: "big.go", Message: "edit 1: `old` does not occur in the file", Nearest: "lines 3-4:\n\tif x {\n\t}"}})
	got := f.Render(2)
	assert.Contains(t, got, "Attempt 2 was rejected: 1 change(s) of the answer could not be applied")
	assert.Contains(t, got, "- big.go: edit 1: `old` does not occur in the file\n  The closest text in big.go is at lines 3-4:\n    \tif x {\n    \t}")
	assert.NotContains(t, got, "Diagnostics (severity", "the edit report replaces the diagnostics list")
	assert.Equal(t, []string{"[blocking edit_not_applied] big.go: edit 1: `old` does not occur in the file"}, f.Lines(), "the audit trail names each problem")
}
