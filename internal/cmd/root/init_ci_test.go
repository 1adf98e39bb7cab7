package root_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestInitWritesTheRepositorysCIWorkflows: the workflow init writes
// lists the repository's CI workflows (initfiles' testdata repositories)
// under workflow_run, or, with none, has no workflow_run trigger (GitHub
// rejects an empty list) and says so; either way actionlint passes it.
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
			require.NoError(t, os.CopyFS(ws, os.DirFS(filepath.Join("..", "initcmd", "initfiles", "testdata", "repos", tt.repo))))
			f, out, _ := cmdtest.TestFactory(t, testenv.New(t))
			require.NoError(t, cmdtest.Execute(t, f, "init", "--no-labels", "--force", "--workspace", ws))
			assert.Contains(t, out.String(), tt.note)
			path := filepath.Join(ws, filepath.FromSlash(initfiles.WorkflowPath))
			wf, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Contains(t, string(wf), tt.want)
			assert.NotContains(t, string(wf), "workflows: [ci]", "the template's placeholder list is gone")
			if strings.HasPrefix(tt.want, "  #") {
				assert.NotContains(t, string(wf), "\n  workflow_run:\n")
			}
			if lintErr != nil {
				t.Skip("actionlint not installed")
			}
			got, err := cmdtest.RunCommand(bin, "-shellcheck=", "-pyflakes=", path)
			require.NoError(t, err, got)
		})
	}
}
