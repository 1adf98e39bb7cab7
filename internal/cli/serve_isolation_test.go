package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/installdir"
	"github.com/cogworks/cogworks/internal/pipeline"
	"github.com/cogworks/cogworks/internal/server"
	"github.com/cogworks/cogworks/internal/testenv"
)

// TestServeRunnerKeepsInstallationsApart: the same repository served for
// two installations is materialised in two private directories, and a
// directory tampered with between jobs is replaced before reuse.
func TestServeRunnerKeepsInstallationsApart(t *testing.T) {
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, _, _ := testFactory(t, env)
	dirs, err := installdir.New(t.TempDir(), nil)
	require.NoError(t, err)
	runner := &ServeRunner{Factory: f, Clients: &tokenSource{client: env.Client}, Dirs: dirs, MaxSteps: 1}
	for _, inst := range []int64{11, 22} {
		_, err := runner.Run(context.Background(), server.Job{Installation: inst, Repo: testenv.Repo, Issue: n})
		require.NoError(t, err)
	}
	one := filepath.Join(dirs.Root(), "installation-11")
	two := filepath.Join(dirs.Root(), "installation-22")
	for _, dir := range []string{one, two} {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
		trees, err := filepath.Glob(filepath.Join(dir, testenv.Repo.Owner, testenv.Repo.Name, "*"))
		require.NoError(t, err)
		assert.NotEmpty(t, trees, "%s holds its own tree of the repository", dir)
	}

	// Someone swaps installation 11's directory for their own.
	require.NoError(t, os.RemoveAll(one))
	require.NoError(t, os.MkdirAll(filepath.Join(one, testenv.Repo.Owner, testenv.Repo.Name), 0o700))
	planted := filepath.Join(one, testenv.Repo.Owner, testenv.Repo.Name, "planted")
	require.NoError(t, os.WriteFile(planted, []byte("x"), 0o600))
	_, err = runner.Run(context.Background(), server.Job{Installation: 11, Repo: testenv.Repo, Issue: n})
	require.NoError(t, err)
	assert.NoFileExists(t, planted, "the tampered directory was refused and rebuilt")
	assert.FileExists(t, filepath.Join(one, installdir.MarkerName))
}

func TestServeOptionsValidate(t *testing.T) {
	ok := ServeOptions{Listen: ":8080", Workers: 1, QueueSize: 1, MaxSteps: 1, ReplayWindow: time.Hour}
	require.NoError(t, ok.Validate())
	tests := []struct {
		name string
		mod  func(*ServeOptions)
		want string
	}{
		{"replay window", func(o *ServeOptions) { o.ReplayWindow = 0 }, "--replay-window"},
		{"trust entry", func(o *ServeOptions) { o.TrustRepoConfig = "acme" }, "--trust-repo-config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.mod(&o)
			assert.ErrorContains(t, o.Validate(), tt.want)
		})
	}
}
