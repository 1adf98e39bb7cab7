package action

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// workflowStep is a step of a workflow job.
type workflowStep struct {
	Name string `yaml:"name"`
	Uses string `yaml:"uses"`
	Run  string `yaml:"run"`
}

// userWorkflows are the workflows a user copies or `cogworks init` writes.
func userWorkflows(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "examples", "workflows", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	return append(paths, filepath.Join("..", "internal", "cmd", "initcmd", "initfiles", "templates", "cogworks.yml"))
}

// runsCogWorks reports whether a step runs CogWorks, and whether it does so
// through the Action (which prepares the runner itself) or by running the
// released binary directly.
func runsCogWorks(s workflowStep) (runs, direct bool) {
	if strings.HasPrefix(s.Uses, "cogworks/cogworks@") {
		return true, false
	}
	for _, sub := range []string{"process ", "process-all "} {
		if strings.Contains(s.Run, "cogworks\" "+sub) || strings.Contains(s.Run, "cogworks "+sub) {
			return true, true
		}
	}
	return false, false
}

// TestUserWorkflowsPrepareTheRunnerForGeneratedCode checks every workflow
// a user is given: before CogWorks runs, the job sets up Go (the built-in Go
// domain service builds and tests with the runner's go command), and a job
// that runs the binary itself instead of the Action lifts Ubuntu 24.04's
// AppArmor user-namespace restriction with the Action's own step (tested by
// TestActionLiftsAppArmorUsernsRestriction), without which the sandbox is
// unavailable and generated code is refused.
func TestUserWorkflowsPrepareTheRunnerForGeneratedCode(t *testing.T) {
	var userns string
	for _, s := range actionSteps(t) {
		if s.ID == "userns" {
			userns = strings.TrimSpace(s.Run)
		}
	}
	require.NotEmpty(t, userns, "action.yml has the userns step")

	for _, path := range userWorkflows(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var wf struct {
			Jobs map[string]struct {
				Steps []workflowStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		require.NoError(t, yaml.Unmarshal(data, &wf), path)
		ran := 0
		for name, job := range wf.Jobs {
			setupGo, lifted := false, false
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "actions/setup-go@") {
					setupGo = true
				}
				if strings.TrimSpace(s.Run) == userns {
					lifted = true
				}
				runs, direct := runsCogWorks(s)
				if !runs {
					continue
				}
				ran++
				assert.True(t, setupGo, "%s: job %s runs CogWorks before actions/setup-go", path, name)
				if direct {
					assert.True(t, lifted, "%s: job %s runs the cogworks binary without action.yml's userns step before it", path, name)
				}
			}
		}
		assert.NotZero(t, ran, "%s runs CogWorks in no job", path)
	}
}

// actionMajor is the major version of the Action a workflow uses.
var actionMajor = regexp.MustCompile(`uses: cogworks/cogworks@v([0-9]+)\b`)

// TestUserWorkflowsVerifyTheDownloadedBinary: a workflow that downloads
// the release archive itself checks it against the release's checksums, as
// the Action does, and runs the Action's major version.
func TestUserWorkflowsVerifyTheDownloadedBinary(t *testing.T) {
	for _, path := range userWorkflows(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		text := string(data)
		if !strings.Contains(text, "gh release download") {
			continue
		}
		assert.True(t, strings.Contains(text, "_checksums.txt"), "%s downloads the release without its checksums file", path)
		assert.True(t, strings.Contains(text, "sha256sum --check --strict"), "%s does not check the archive's checksum", path)
		// Next to the Action at @vN, the downloaded binary must be a vN
		// too: a newer major writes snapshots the Action refuses.
		if m := actionMajor.FindStringSubmatch(text); m != nil {
			assert.True(t, strings.Contains(text, `startswith("v`+m[1]+`.")`), "%s runs cogworks/cogworks@v%s but downloads another release", path, m[1])
		}
	}
}
