package domain_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/testkit"
)

const schemaDir = "../schemas/extension-api"

// TestSchemasUpToDate fails when the checked-in schemas drift from the Go
// types; regenerate with UPDATE=1 go test ./domain -run TestSchemasUpToDate.
func TestSchemasUpToDate(t *testing.T) {
	t.Parallel()
	docs, err := domain.GenerateSchemas()
	require.NoError(t, err)
	for _, name := range domain.SchemaNames() {
		testkit.Golden(t, filepath.Join(schemaDir, domain.SchemaFileName(name)), string(docs[name]))
	}
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.schema.json"))
	require.NoError(t, err)
	assert.Len(t, files, len(docs), "stale schema files in %s", schemaDir)
}

func TestSchemasRejectBadDocuments(t *testing.T) {
	t.Parallel()
	s, err := domain.CompileSchemas()
	require.NoError(t, err)
	tests := []struct {
		name, schema, doc, wantErr string
	}{
		{"ok response", domain.SchemaResponse, `{"request_id":"1","status":"ok","result":{}}`, ""},
		{"bad status", domain.SchemaResponse, `{"request_id":"1","status":"fine"}`, "status"},
		{"missing request_id", domain.SchemaResponse, `{"status":"ok"}`, "request_id"},
		{"unknown error code", domain.SchemaResponse, `{"request_id":"1","status":"error","error":{"code":"oops","message":"m","recoverable":false}}`, "code"},
		{"value of wrong type", domain.ResultSchema(domain.MethodExtractInterfaces),
			`{"declarations":[],"values":[{"interface":"I","parameter":"p","value":[1],"artifact":"a.go","location":{"file":"a.go"}}]}`, "value"},
		{"bad api_version", domain.ResultSchema(domain.MethodHandshake),
			`{"name":"n","service_version":"1","api_version":"one","domain":"d","capabilities":[],"artifact_types":[],"interface_types":[],"interface_versions":{}}`, "api_version"},
		{"bad severity", domain.ResultSchema(domain.MethodValidate),
			`{"diagnostics":[{"artifact":"a","location":{"file":"a"},"severity":"fatal","category":"x","message":"m"}]}`, "severity"},
		{"not JSON", domain.SchemaResponse, `<html>`, "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Validate(tt.schema, []byte(tt.doc))
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
