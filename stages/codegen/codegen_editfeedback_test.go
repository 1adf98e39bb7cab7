package codegen_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// repoFiles is a polyglot repository's file list.
var repoFiles = []string{
	"go.mod", "telemetry/publish.go", "telemetry/publish_test.go", "internal/can/frame.go",
	"pyproject.toml", "src/calc/__init__.py", "src/calc/ops.py", "tests/test_ops.py", "tests/__init__.py",
	"web/src/cart.ts", "web/src/cart.test.ts", "web/src/index.ts", "api/src/index.ts",
	"Cargo.toml", "src/lib.rs", "src/parser.rs",
	"src/main/java/com/acme/Cart.java", "src/test/java/com/acme/CartTest.java",
}

func TestNearestPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ lang, missing, want string }{
		{"go", "publish.go", "telemetry/publish.go"},
		{"go", "pkg/telemetry/publish.go", "telemetry/publish.go"},
		{"go", "telemetry/publisher.go", "telemetry/publish.go"},
		{"go", "can/frame.go", "internal/can/frame.go"},
		{"python", "calc/ops.py", "src/calc/ops.py"},
		{"python", "src/calc/operations.py", ""}, // too far from any name: no guess
		{"python", "test/test_ops.py", "tests/test_ops.py"},
		{"python", "src/calc/op.py", "src/calc/ops.py"},
		{"typescript", "src/cart.ts", "web/src/cart.ts"},
		{"typescript", "web/index.ts", "web/src/index.ts"}, // of two index.ts, the closer path
		{"typescript", "web/src/cart.spec.ts", ""},
		{"rust", "lib.rs", "src/lib.rs"},
		{"rust", "src/parse.rs", "src/parser.rs"},
		{"java", "src/main/java/Cart.java", "src/main/java/com/acme/Cart.java"},
		{"java", "src/test/java/com/acme/CartTests.java", "src/test/java/com/acme/CartTest.java"},
		{"any", "src/calc/ops.go", ""}, // another language's file of the same name is not it
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.missing, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, codegen.NearestPath(tt.missing, repoFiles))
		})
	}
}

func TestElisionMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang, old, content, want string
	}{
		{"go", "func A() {\n\t// ... existing code ...\n\treturn 1\n}", "func A() {\n\tx()\n\treturn 1\n}", "// ... existing code ..."},
		{"go", "import (\n\t\"fmt\"\n\t// ...\n)", "import (\n\t\"fmt\"\n\t\"os\"\n)", "// ..."},
		{"go", "func A() {\n\tx()\n}", "func A() {\n\ty()\n}", ""},
		{"python", "def add(a, b):\n    # ...\n    return a + b", "def add(a, b):\n    check(a)\n    return a + b", "# ..."},
		{"python", "class Cart:\n    ...\n    def total(self):", "class Cart:\n    items = []\n    def total(self):", "..."},
		{"python", "class P(Protocol):\n    def f(self): ...\n    ...", "class P(Protocol):\n    ...", ""}, // the file's own `...` is code
		{"python", "# rest of the file unchanged\nx = 1", "x = 2", "# rest of the file unchanged"},
		{"typescript", "export function total() {\n  /* ... */\n}", "export function total() {\n  return 1;\n}", "/* ... */"},
		{"typescript", "return (\n  <div>\n    {/* ...existing JSX... */}\n  </div>\n)", "return (\n  <div/>\n)", "{/* ...existing JSX... */}"},
		{"typescript", "const a = { ...rest, b: 1 };", "const a = { ...rest };", ""}, // spread syntax, not a marker
		{"rust", "pub fn parse() {\n    // … other fields unchanged\n}", "pub fn parse() {}", "// … other fields unchanged"},
		{"rust", "#[test]\nfn t() {\n    assert!(x);\n}", "#[test]\nfn t() {}", ""},
		{"java", "public int total() {\n    // existing implementation\n    return sum;\n}", "public int total() {\n    return sum;\n}", "// existing implementation"},
		{"java", "/**\n * Totals the cart.\n */", "/** Cart. */", ""},
		{"any: copied from a focused file", "def a():\n⋮ lines 3–9 not shown\n    return 1", "def a():\n    x = 1\n    return 1", "⋮ lines 3–9 not shown"},
	}
	for _, tt := range tests {
		t.Run(tt.lang+"/"+tt.want, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, codegen.ElisionMarker(tt.old, tt.content))
		})
	}
}

func TestNewElisionMarker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		lang, new, old, content, want string
	}{
		{"go", "func A() {\n\t// ... existing code ...\n\ty()\n}", "func A() {\n\tx()\n}", "func A() {\n\tx()\n}", "// ... existing code ..."},
		{"go: a real comment about unchanged state", "\t// the buffer stays unchanged on error\n\treturn nil", "\treturn err", "\treturn err", ""},
		{"python", "def add(a, b):\n    # rest of the function\n    return a + b", "def add(a, b):\n    return a - b", "def add(a, b):\n    return a - b", "# rest of the function"},
		{"python: a stub's ... is code", "class P(Protocol):\n    def f(self):\n        ...", "class P(Protocol):\n    pass", "class P(Protocol):\n    pass", ""},
		{"typescript", "export function total() {\n  // ...\n  return sum;\n}", "export function total() {\n  return 0;\n}", "x", "// ..."},
		{"rust: kept from old", "fn a() {\n    // ... keep\n    b();\n}", "fn a() {\n    // ... keep\n}", "fn a() {\n    // ... keep\n}", ""},
		{"java", "void run() {\n    /* existing implementation */\n    log();\n}", "void run() {\n}", "void run() {\n}", "/* existing implementation */"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, codegen.NewElisionMarker(tt.new, tt.old, tt.content))
		})
	}
}

// TestApplyAnswerFeedbackNamesTheMistake: the two first-answer mistakes
// that each cost an attempt on real fixes get feedback that says what to
// do, in every language: the path meant, and that `old` may not elide.
func TestApplyAnswerFeedbackNamesTheMistake(t *testing.T) {
	t.Parallel()
	repo := stagetest.MemRepo{
		"telemetry/publish.go":             "package telemetry\n\nfunc Publish() {\n\tsend()\n\tlog()\n}\n",
		"src/calc/ops.py":                  "def add(a, b):\n    check(a)\n    return a + b\n",
		"web/src/cart.ts":                  "export function total() {\n  return 1;\n}\n",
		"src/lib.rs":                       "pub fn one() -> i32 {\n    1\n}\n",
		"src/main/java/com/acme/Cart.java": "class Cart {\n    int total() {\n        return 1;\n    }\n}\n",
		".cogworks/scenarios/ops.py":       "secret\n",
	}
	base := codegen.BaseTree{Repo: repo, Overlay: map[string]string{}}
	tests := []struct {
		lang string
		edit codegen.CodeEdit
		want []string
		not  []string
	}{
		{"go", codegen.CodeEdit{Path: "publish.go", Old: "send()", New: "x"},
			[]string{"publish.go: edit 1: the file does not exist; the nearest existing path is `telemetry/publish.go`", "create new files under `files`"}, nil},
		{"go", codegen.CodeEdit{Path: "telemetry/publish.go", Old: "func Publish() {\n\t// ... existing code ...\n\tlog()\n}", New: "x"},
			[]string{"`old` contains an elision marker (`// ... existing code ...`); elision markers are not allowed", "exact text", "The closest text"}, []string{"does not occur"}},
		{"python", codegen.CodeEdit{Path: "calc/ops.py", Old: "check(a)", New: "x"},
			[]string{"the nearest existing path is `src/calc/ops.py`"}, []string{".cogworks"}},
		{"python", codegen.CodeEdit{Path: "src/calc/ops.py", Old: "def add(a, b):\n    # ...\n    return a + b", New: "x"},
			[]string{"elision marker (`# ...`)"}, nil},
		{"typescript", codegen.CodeEdit{Path: "src/cart.ts", Old: "return 1;", New: "x"},
			[]string{"the nearest existing path is `web/src/cart.ts`"}, nil},
		{"typescript", codegen.CodeEdit{Path: "web/src/cart.ts", Old: "export function total() {\n  /* ... */\n}", New: "x"},
			[]string{"elision marker (`/* ... */`)"}, nil},
		{"rust", codegen.CodeEdit{Path: "lib.rs", Old: "1", New: "2"},
			[]string{"the nearest existing path is `src/lib.rs`"}, nil},
		{"rust", codegen.CodeEdit{Path: "src/lib.rs", Old: "pub fn one() -> i32 {\n    // rest of the function unchanged\n}", New: "x"},
			[]string{"elision marker (`// rest of the function unchanged`)"}, nil},
		{"java", codegen.CodeEdit{Path: "src/main/java/Cart.java", Old: "return 1;", New: "x"},
			[]string{"the nearest existing path is `src/main/java/com/acme/Cart.java`"}, nil},
		{"java", codegen.CodeEdit{Path: "src/main/java/com/acme/Cart.java", Old: "int total() {\n        ...\n    }", New: "x"},
			[]string{"elision marker (`...`)"}, nil},
		{"go: new elides what old quotes", codegen.CodeEdit{Path: "telemetry/publish.go", Old: "func Publish() {\n\tsend()\n\tlog()\n}", New: "func Publish() {\n\t// ... existing code ...\n\tflush()\n}"},
			[]string{"`new` contains an elision marker (`// ... existing code ...`)", "write every line of `new` in full"}, nil},
		{"any: a plain mismatch stays as it was", codegen.CodeEdit{Path: "src/lib.rs", Old: "pub fn two()", New: "x"},
			[]string{"`old` does not occur in the file"}, []string{"elision"}},
		{"any: nothing near", codegen.CodeEdit{Path: "docs/guide.md", Old: "a", New: "b"},
			[]string{"edit 1: the file does not exist; create new files under `files`"}, []string{"nearest"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			t.Parallel()
			_, probs, err := codegen.ApplyAnswer(context.Background(), base, codegen.CodeOutput{Edits: []codegen.CodeEdit{tt.edit}})
			require.NoError(t, err)
			require.Len(t, probs, 1)
			text := codegen.EditFailure(probs).Render(1)
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, text, n)
			}
		})
	}
}

// Renames and deletes of a missing path name the nearest path too; a
// file the answer renamed away is no longer suggested.
func TestMissingRenameAndDeleteNameTheNearestPath(t *testing.T) {
	t.Parallel()
	base := codegen.BaseTree{Repo: stagetest.MemRepo{"src/calc/ops.py": "x = 1\n", "src/calc/io.py": "y = 1\n"}}
	_, probs, err := codegen.ApplyAnswer(context.Background(), base, codegen.CodeOutput{
		Renames: []codegen.CodeRename{{From: "calc/ops.py", To: "calc/new.py"}, {From: "src/calc/io.py", To: "src/calc/inout.py"}},
		Deletes: []string{"calc/io.py"},
	})
	require.NoError(t, err)
	text := codegen.EditFailure(probs).Render(1)
	assert.Contains(t, text, "calc/ops.py: rename: the file does not exist; the nearest existing path is `src/calc/ops.py`")
	assert.Contains(t, text, "calc/io.py: delete: the file does not exist\n", "io.py was renamed away: nothing by that name remains")
}
