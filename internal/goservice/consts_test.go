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
