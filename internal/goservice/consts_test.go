package goservice

import (
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestConstEvaluator(t *testing.T) {
	src := `package p
const (
	A = iota * 10
	B
	C
)
const (
	Hex uint32 = 0x1F << 4
	Div = 7 / 2
	FDiv = 7.0 / 2
	Neg = -(3 + 4)
	Str = "can" + "bus"
	Yes = !false && 3 > 2
	Conv = uint16(Hex) | 1
	Float float64 = 1
	Self = Self + 1
	Zero = 1 / 0
	Ext = time.Second
	Mixed = "a" + 1
)
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
	require.NoError(t, err)
	e := newConstEvaluator()
	e.addFile(f)
	tests := []struct {
		name    string
		want    any
		wantErr string
	}{
		{"A", int64(0), ""},
		{"B", int64(10), ""},
		{"C", int64(20), ""},
		{"Hex", int64(0x1F0), ""},
		{"Div", int64(3), ""},
		{"FDiv", 3.5, ""},
		{"Neg", int64(-7), ""},
		{"Str", "canbus", ""},
		{"Yes", true, ""},
		{"Conv", int64(0x1F1), ""},
		{"Float", 1.0, ""},
		{"Self", nil, "in terms of itself"},
		{"Zero", nil, "division by zero"},
		{"Ext", nil, "unsupported constant expression"},
		{"Mixed", nil, "does not apply"},
		{"Missing", nil, "not declared"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.valueOf(tt.name)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCheckArtifactPath(t *testing.T) {
	tests := []struct {
		path string
		ok   bool
	}{
		{"main.go", true},
		{"pkg/sub/a.go", true},
		{"./a.go", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../a.go", false},
		{"a/../../b.go", false},
		{"/abs/a.go", false},
		{`\\server\a.go`, false},
	}
	for _, tt := range tests {
		err := checkArtifactPath(tt.path)
		assert.Equal(t, tt.ok, err == nil, "%q: %v", tt.path, err)
	}
}

func TestToolDiagnosticsParsesCompilerOutput(t *testing.T) {
	ws := &workspace{dir: "/tmp/ws"}
	out := "# example.com/m\n./a.go:3:9: cannot use \"x\" (untyped string constant) as int value\n" +
		"/tmp/ws/sub/b.go:10:2: syntax error: unexpected }\n\tmore detail\n" +
		"go: something without a position\n"
	diags, loose := ws.toolDiagnostics(out, classifyCompile)
	require.Len(t, diags, 2)
	assert.Equal(t, "a.go", diags[0].Location.File)
	assert.Equal(t, 3, diags[0].Location.Line)
	assert.Equal(t, "type_error", string(diags[0].Category))
	assert.Equal(t, "sub/b.go", diags[1].Artifact)
	assert.Equal(t, "syntax_error", string(diags[1].Category))
	assert.Contains(t, diags[1].Message, "more detail")
	assert.Equal(t, []string{"go: something without a position"}, loose)
}
