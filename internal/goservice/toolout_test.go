package goservice

import (
	"go/format"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
)

// The testdata/toolout files are real toolchain output (go1.26, -trimpath)
// captured from a module example.com/canmod in /tmp/toolcap/m; toolWorkspace
// recreates the files they name so that paths can be checked against what
// the model sees.

const (
	canGo        = "package can\n\n// Load returns the bus load.\nfunc Load() int { return 1 }\n"
	typeErrGo    = "package can\n\nfunc Bad() int {\n\treturn \"x\"\n}\n"
	syntaxGo     = "package can\n\nfunc Broken( {\n"
	vetFindingGo = "package can\n\nimport \"fmt\"\n\nfunc Say() string {\n\treturn fmt.Sprintf(\"%d\", \"x\")\n}\n"
)

func toolWorkspace(t *testing.T, files map[string]string) *workspace {
	t.Helper()
	dir := filepath.Join(t.TempDir(), workspacePrefix+"999")
	files["go.mod"] = "module example.com/canmod\n\ngo 1.24\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return &workspace{dir: dir}
}

func captured(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "toolout", name))
	require.NoError(t, err)
	return data
}

func TestCompileDiagnosticsFromBuildJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content string
		want                domain.Diagnostic
	}{
		{"type error", "build_type.json", typeErrGo, domain.Diagnostic{
			Artifact: "can/bad.go", Location: domain.Location{File: "can/bad.go", Line: 4, Column: 9},
			Severity: domain.SeverityBlocking, Category: domain.CategoryTypeError, Explains: domain.ExplainsCompileError,
			Message: `cannot use "x" (untyped string constant) as int value in return statement`}},
		{"syntax error, classified by go/parser", "build_syntax.json", syntaxGo, domain.Diagnostic{
			Artifact: "can/bad.go", Location: domain.Location{File: "can/bad.go", Line: 3, Column: 14},
			Severity: domain.SeverityBlocking, Category: domain.CategorySyntaxError, Explains: domain.ExplainsCompileError,
			Message: "syntax error: unexpected {, expected )"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := toolWorkspace(t, map[string]string{"can/can.go": canGo, "can/bad.go": tt.content})
			outputs, loose := buildOutputs(captured(t, tt.file))
			assert.Empty(t, loose)
			require.Contains(t, outputs, "example.com/canmod/can")
			diags, loose := ws.compileDiagnostics(outputs["example.com/canmod/can"])
			assert.Empty(t, loose)
			assert.Equal(t, []domain.Diagnostic{tt.want}, diags)
		})
	}
}

func TestCompileDiagnosticsOfVetStderr(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{"can/bad2.go": "package can\n\nfunc Bad() int { return \"x\" }\n"})
	diags, loose := ws.compileDiagnostics(string(captured(t, "vet_typeerr.stderr")))
	assert.Empty(t, loose)
	require.Len(t, diags, 1)
	assert.Equal(t, domain.Location{File: "can/bad2.go", Line: 3, Column: 25}, diags[0].Location)
	assert.Equal(t, domain.CategoryTypeError, diags[0].Category)
}

func TestCompileDiagnosticsNameOnlyVisibleFiles(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{"can/can.go": canGo})
	out := "# example.com/canmod/can\n" +
		"can/can.go:4:1: in the workspace\n" +
		"../cogworks-go-123/can/can.go:4:2: replayed from another workspace\n" +
		"/root/go/pkg/mod/example.com/dep@v1.0.0/dep.go:1:1: in the module cache\n" +
		"\tcontinued\n" +
		"go: something without a position\n"
	diags, loose := ws.compileDiagnostics(out)
	require.Len(t, diags, 3)
	assert.Equal(t, "can/can.go", diags[0].Location.File)
	assert.Equal(t, "can/can.go", diags[1].Location.File, "another workspace's path maps to this one's file")
	assert.Equal(t, domain.Location{Line: 1, Column: 1}, diags[2].Location, "a file outside the workspace is not named")
	assert.Empty(t, diags[2].Artifact)
	assert.Equal(t, "in the module cache\ncontinued", diags[2].Message)
	assert.Equal(t, []string{"go: something without a position"}, loose)
}

func TestVetDiagnosticsFromJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stdout string
		want         domain.Location
	}{
		// go vet run by hand in /tmp/toolcap/m: a directory that is not a
		// workspace, so the finding is reported at the package.
		{"path of a directory the model never saw", string(captured(t, "vet.json")), domain.Location{File: "can"}},
		// The reference service's second validate of the same file in the
		// sandbox: go vet replays the first workspace's (removed) path.
		{"cached finding replayed from another workspace", string(captured(t, "vet_replay.json")),
			domain.Location{File: "can/fmt.go", Line: 6, Column: 22}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := toolWorkspace(t, map[string]string{"can/bad.go": vetFindingGo, "can/fmt.go": vetFindingGo})
			diags, err := ws.vetDiagnostics([]byte(tt.stdout))
			require.NoError(t, err)
			require.Len(t, diags, 1)
			assert.Equal(t, tt.want, diags[0].Location)
			assert.Equal(t, tt.want.File, diags[0].Artifact)
			assert.Equal(t, domain.CategoryStyleViolation, diags[0].Category)
			assert.Equal(t, domain.SeverityWarning, diags[0].Severity)
			assert.Equal(t, `fmt.Sprintf format %d has arg "x" of wrong type string`, diags[0].Message)
		})
	}
}

func TestVetDiagnosticsAnalyzerErrorAndGarbage(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{})
	diags, err := ws.vetDiagnostics([]byte(`{"example.com/canmod/can":{"printf":{"error":"analysis failed"}}}` + "\n{}\n"))
	require.NoError(t, err)
	require.Len(t, diags, 1)
	assert.Equal(t, "printf: analysis failed", diags[0].Message)
	_, err = ws.vetDiagnostics([]byte("vet: not JSON"))
	assert.ErrorContains(t, err, "decode go vet -json output")
}

func TestParseTestEventsExplainsFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want map[string]domain.Explanation // failing leaf test ⇒ explanation
		loc  map[string]domain.Location
	}{
		{"test_fail.json", map[string]domain.Explanation{
			"TestGotWant failed": domain.ExplainsAssertion, "TestBare failed": "", "TestSub/case failed": domain.ExplainsAssertion,
		}, map[string]domain.Location{
			"TestGotWant failed": {File: "can/can_test.go", Line: 12}, "TestBare failed": {File: "can/can_test.go", Line: 17},
			"TestSub/case failed": {File: "can/can_test.go", Line: 21},
		}},
		{"test_panic.json", map[string]domain.Explanation{"TestPanic failed": domain.ExplainsPanic},
			map[string]domain.Location{"TestPanic failed": {File: "can"}}},
		{"test_timeout.json", map[string]domain.Explanation{"TestHang failed": domain.ExplainsTimeout},
			map[string]domain.Location{"TestHang failed": {File: "can"}}},
		{"test_build_fail.json", map[string]domain.Explanation{`cannot use "x" (untyped string constant) as int value in return statement`: domain.ExplainsCompileError},
			map[string]domain.Location{`cannot use "x" (untyped string constant) as int value in return statement`: {File: "can/bad.go", Line: 4, Column: 9}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ws := toolWorkspace(t, map[string]string{"can/can.go": canGo, "can/can_test.go": "package can\n", "can/bad.go": typeErrGo})
			res := judgeCaptured(ws, captured(t, tt.file))
			got := map[string]domain.Explanation{}
			loc := map[string]domain.Location{}
			for _, d := range res.Diagnostics {
				key, _, _ := strings.Cut(d.Message, ":\n")
				got[key], loc[key] = d.Explains, d.Location
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.loc, loc)
		})
	}
}

func TestExplainTestOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, out string
		want      domain.Explanation
	}{
		{"got/want", "    x_test.go:9: Sum() got 3, want 4\n", domain.ExplainsAssertion},
		{"want/got", "    x_test.go:9: want 4, got 3\n", domain.ExplainsAssertion},
		{"Go convention", "    x_test.go:9: Sum(1, 2) = 3, want 4\n", domain.ExplainsAssertion},
		{"testify", "Error: Not equal:\n expected: 4\n actual  : 3\n", domain.ExplainsAssertion},
		{"panic with stack", "panic: boom\n\ngoroutine 7 [running]:\nexample.com/w.F()\n", domain.ExplainsPanic},
		{"timeout", "panic: test timed out after 30s\n", domain.ExplainsTimeout},
		{"bare", "    x_test.go:9: counter misbehaves\n", ""},
		{"panic without stack", "panic: boom\n", ""},
		{"words inside others", "    x_test.go:9: forgot the wanted thing\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, explainTestOutput(tt.out))
		})
	}
}

func TestListDiagnosticsFromGoListJSON(t *testing.T) {
	t.Parallel()
	ws := toolWorkspace(t, map[string]string{"can/imp.go": "package can\n\nimport _ \"example.com/missing/pkg\"\n"})
	pkgs, err := decodeList(captured(t, "list_missing.json"))
	require.NoError(t, err)
	diags := ws.listDiagnostics(pkgs, map[string]bool{})
	require.Len(t, diags, 1, "the error go list repeats in DepsErrors is reported once")
	assert.Equal(t, domain.Location{File: "can/imp.go", Line: 3, Column: 8}, diags[0].Location)
	assert.Equal(t, domain.CategoryDependencyError, diags[0].Category)
	assert.Contains(t, diags[0].Message, "cannot find module providing package example.com/missing/pkg")
}

func TestGoModDiagnostics(t *testing.T) {
	t.Parallel()
	assert.Empty(t, goModDiagnostics([]byte("module example.com/m\n\ngo 1.24\n")))
	diags := goModDiagnostics(captured(t, "bad.go.mod"))
	require.Len(t, diags, 2)
	assert.Equal(t, domain.Location{File: "go.mod", Line: 5, Column: 1}, diags[0].Location)
	assert.Equal(t, domain.Location{File: "go.mod", Line: 7, Column: 1}, diags[1].Location)
	assert.Contains(t, diags[0].Message, "go.mod does not parse: ")
}

func TestSyntaxDiagnosticFromScannerErrorList(t *testing.T) {
	t.Parallel()
	_, err := format.Source([]byte("package p\n\nfunc F( {\n\nvar = \n"))
	require.Error(t, err)
	d := syntaxDiagnostic("p/f.go", err)
	assert.Equal(t, domain.Location{File: "p/f.go", Line: 3, Column: 9}, d.Location)
	assert.Equal(t, domain.CategorySyntaxError, d.Category)
	assert.NotContains(t, d.Message, "p/f.go", "the message names no parse-time path")
}

func TestParsePosn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		file      string
		line, col int
		ok        bool
	}{
		{"can/bad.go:4:9", "can/bad.go", 4, 9, true},
		{"can/bad.go:4", "can/bad.go", 4, 0, true},
		{"C:/x/a.go:3:2", "C:/x/a.go", 3, 2, true},
		{"can/bad.go", "", 0, 0, false},
		{":4", "", 0, 0, false},
		{"a.go:x", "", 0, 0, false},
	}
	for _, tt := range tests {
		file, line, col, ok := parsePosn(tt.in)
		assert.Equal(t, tt.ok, ok, tt.in)
		assert.Equal(t, tt.file, file, tt.in)
		assert.Equal(t, tt.line, line, tt.in)
		assert.Equal(t, tt.col, col, tt.in)
	}
}
