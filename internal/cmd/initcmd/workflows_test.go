package initcmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestDetectCIWorkflows: init finds the named workflows that run on a
// pull request's commits, leaves CogWorks's own and the ones that do not
// run on commits (a release, a schedule) out, lists the unnamed apart,
// and refuses a file that is not YAML.
func TestDetectCIWorkflows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		repo    string
		want    initcmd.CIWorkflows
		wantErr string
	}{
		{"go-ci", initcmd.CIWorkflows{Names: []string{"CI", "Lint & vet"}}, ""},
		{"no-ci", initcmd.CIWorkflows{}, ""},
		{"unnamed", initcmd.CIWorkflows{Unnamed: []string{".github/workflows/test.yml"}}, ""},
		{"broken", initcmd.CIWorkflows{}, ".github/workflows/ci.yml is not a workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			t.Parallel()
			got, err := initcmd.DetectCIWorkflows(filepath.Join("testdata", "repos", tt.repo))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestInitWritesTheRepositorysCIWorkflows: the workflow init writes
// lists the repository's CI workflows under workflow_run, or, with none,
// has no workflow_run trigger (GitHub rejects an empty list) and says so;
// either way actionlint passes it.
func TestInitWritesTheRepositorysCIWorkflows(t *testing.T) {
	t.Parallel()
	bin, lintErr := cmdtest.LookActionlint()
	tests := []struct {
		repo, want, note string
	}{
		{"go-ci", `    workflows: ["CI","Lint & vet"]` + "\n", "lists your CI workflows CI, Lint & vet"},
		{"no-ci", "  # workflow_run: init found no CI workflow", "no CI workflow found"},
		{"unnamed", "  # workflow_run: init found no CI workflow", ".github/workflows/test.yml ha(s) no name"},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join("testdata", "repos", tt.repo))))
			f, out, _ := cmdtest.TestFactory(t, testenv.New(t))
			require.NoError(t, cmdtest.Execute(t, f, "init", "--no-labels", "--force", "--workspace", ws))
			assert.Contains(t, out.String(), tt.note)
			wf, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(initcmd.InitWorkflowPath)))
			require.NoError(t, err)
			assert.Contains(t, string(wf), tt.want)
			assert.NotContains(t, string(wf), "workflows: [ci]", "the template's placeholder list is gone")
			if strings.HasPrefix(tt.want, "  #") {
				assert.NotContains(t, string(wf), "\n  workflow_run:\n")
			}
			if lintErr != nil {
				t.Skip("actionlint not installed")
			}
			got, err := cmdtest.RunCommand(bin, "-shellcheck=", "-pyflakes=", filepath.Join(ws, filepath.FromSlash(initcmd.InitWorkflowPath)))
			require.NoError(t, err, got)
		})
	}
}

// TestRenderWorkflowRefusesATemplateWithoutItsList: a template edit that
// moves the workflow_run list fails init loudly instead of writing a
// workflow that hears a CI named "ci".
func TestRenderWorkflowRefusesATemplateWithoutItsList(t *testing.T) {
	t.Parallel()
	_, err := initcmd.RenderWorkflow([]byte("on:\n  workflow_run:\n    workflows: [build]\n"), initcmd.CIWorkflows{Names: []string{"CI"}})
	require.ErrorContains(t, err, "workflow_run trigger is not where init writes")
}
