package conformance_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/conformance"
)

func TestPipelineMethods(t *testing.T) {
	tests := []struct {
		name   string
		caps   []string
		errSub string
	}{
		{name: "handshake only fails naming every missing method", caps: []string{domain.MethodHandshake},
			errSub: `service "py" does not declare validate, simulate, which the pipeline calls`},
		{name: "no simulate", caps: []string{domain.MethodValidate, domain.MethodNormalise, domain.MethodReviewRules, domain.MethodExtractInterfaces},
			errSub: "does not declare simulate, which the pipeline calls"},
		{name: "all needed", caps: conformance.Needed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := conformance.PipelineMethods(domain.HandshakeResult{Name: "py", Capabilities: tt.caps})
			if tt.errSub == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.errSub)
		})
	}
}

func TestOwnTypesSendsTheServiceItsOwnFiles(t *testing.T) {
	extra := domain.Artifact{Path: "extra.go", Content: "package conformance\n"}
	tests := []struct {
		name  string
		types []string
		want  []string
	}{
		{name: "go keeps extra.go alone", types: []string{".go", "go.mod"}, want: []string{"extra.go"}},
		{name: "python gets a .py file", types: []string{".py", "pyproject.toml"}, want: []string{"extra.go", "conformance_extra.py"}},
		{name: "typescript and javascript", types: []string{".ts", ".js"}, want: []string{"extra.go", "conformance_extra.ts", "conformance_extra.js"}},
		{name: "java names its class", types: []string{".java"}, want: []string{"extra.go", "Extra.java"}},
		{name: "an unknown type adds nothing", types: []string{".plc"}, want: []string{"extra.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := conformance.OwnTypes(domain.HandshakeResult{ArtifactTypes: tt.types}, domain.Request{Artifacts: []domain.Artifact{extra}})
			var paths []string
			for _, a := range got.Artifacts {
				paths = append(paths, a.Path)
			}
			assert.Equal(t, tt.want, paths)
		})
	}
}
