package initfiles_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
)

// TestDetectCIWorkflows: init finds the named workflows that run on a
// pull request's commits, leaves CogWorks's own and the ones that do not
// run on commits (a release, a schedule) out, lists the unnamed apart,
// and refuses a file that is not YAML.
func TestDetectCIWorkflows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repo    string
		want    initfiles.CIWorkflows
		wantErr string
	}{
		{"go-ci", initfiles.CIWorkflows{Names: []string{"CI", "Lint & vet"}}, ""},
		{"no-ci", initfiles.CIWorkflows{}, ""},
		{"unnamed", initfiles.CIWorkflows{Unnamed: []string{".github/workflows/test.yml"}}, ""},
		{"broken", initfiles.CIWorkflows{}, ".github/workflows/ci.yml is not a workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			t.Parallel()
			got, err := initfiles.DetectCIWorkflows(filepath.Join("testdata", "repos", tt.repo))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestRenderWorkflowRefusesATemplateWithoutItsList: a template edit that
// moves the workflow_run list fails init loudly instead of writing a
// workflow that hears a CI named "ci".
func TestRenderWorkflowRefusesATemplateWithoutItsList(t *testing.T) {
	t.Parallel()
	_, err := initfiles.RenderWorkflow([]byte("on:\n  workflow_run:\n    workflows: [build]\n"), initfiles.CIWorkflows{Names: []string{"CI"}})
	require.ErrorContains(t, err, "workflow_run trigger is not where init writes")
	files, err := initfiles.Files()
	require.NoError(t, err)
	_, err = initfiles.RenderWorkflow(files[initfiles.WorkflowPath], initfiles.CIWorkflows{Names: []string{"CI"}})
	require.NoError(t, err, "the embedded template has the list where init writes it")
}
