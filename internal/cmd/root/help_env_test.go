package root_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// userEnv is a variable a user may set: CogWorks's own and the Actions
// variables that stand in for flags.
var userEnv = regexp.MustCompile(`^(COGWORKS|GITHUB)_[A-Z0-9_]+$`)

// envRecorder is a Getenv that answers from a map and remembers every
// variable asked for.
type envRecorder struct {
	mu   sync.Mutex
	vars map[string]string
	read map[string]bool
}

func (r *envRecorder) Getenv(k string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read[k] = true
	return r.vars[k]
}

func (r *envRecorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for k := range r.read {
		if userEnv.MatchString(k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestHelpNamesTheEnvironmentACommandReads keeps README's promise that
// "every command's --help lists ... the environment variables it reads":
// each command is run once in its usual set-up with a Getenv that records
// what it asks for, and every COGWORKS_ or GITHUB_ variable it asked for
// must appear in its --help.
func TestHelpNamesTheEnvironmentACommandReads(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/w\n\ngo 1.26\n"), 0o644))
	repo := testenv.Repo.String()

	// In order: status and cost-report need the status comment process writes.
	runs := [][]string{
		{"process", "--repo", repo, "--issue", "1", "--workspace", ws, "--max-steps", "2"},
		{"process-all", "--repo", repo, "--workspace", ws, "--dry-run"},
		{"status", "--repo", repo, "--issue", "1", "--workspace", ws},
		{"cost-report", "--repo", repo, "--issue", "1", "--workspace", ws},
		{"init", "--repo", repo, "--workspace", ws, "--dry-run"},
		{"registry", "validate", "--workspace", ws},
		{"health", "--workspace", ws},
		{"doctor", "--offline", "--repo", repo, "--workspace", ws},
	}
	for _, args := range runs {
		rec := &envRecorder{vars: map[string]string{}, read: map[string]bool{}}
		f, _, _ := cmdtest.TestFactory(t, env)
		// The redactor asks for every secret there may be, to remove
		// their values from output; that is not reading a setting.
		f.Redactor()
		f.Getenv = rec.Getenv
		tree := root.NewCmdRoot(f, "test")
		tree.SetArgs(args)
		_ = tree.ExecuteContext(context.Background()) // what it reads matters here, not whether it passed

		cmd, _, err := root.NewCmdRoot(f, "test").Find(args)
		require.NoError(t, err)
		var help bytes.Buffer
		cmd.SetOut(&help)
		require.NoError(t, cmd.Help())
		read := rec.names()
		if args[0] == "process" {
			require.NotEmpty(t, read, "process read no variable: is the recorder wired?")
		}
		for _, name := range read {
			assert.True(t, strings.Contains(help.String(), name), "%s reads %s, which its --help does not name", cmd.CommandPath(), name)
		}
	}
}
