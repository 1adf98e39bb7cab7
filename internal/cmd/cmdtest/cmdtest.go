package cmdtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/installdir"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/stretchr/testify/require"
)

// ReexecEnv makes the test binary act as the cogworks binary, so the
// built-in domain service can be started as a real child process.
const ReexecEnv = "COGWORKS_CLI_TEST_REEXEC"

// TestFactory returns a Factory wired to a simulator with test executors
// that finish every stage.
func TestFactory(t *testing.T, env *testenv.Env) (*factory.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &errOut}, Getenv: func(string) string { return "" }, Clock: env.Clock.Now, BotLogin: testenv.Bot}
	f.GitHub = func(context.Context) (factory.Client, error) { return env.Client, nil }
	f.Executors = func(context.Context, factory.Client, github.Repo, string, config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		m := map[pipeline.Stage]engine.StageExecutor{}
		for _, s := range pipeline.AllStages() {
			m[s] = engine.StageExecutorFunc(func(_ context.Context, in engine.StageInput) (engine.StageResult, error) {
				if in.Stage == pipeline.StageIntegration {
					return engine.StageResult{Event: pipeline.EventAllDone}, nil
				}
				return engine.StageResult{Event: pipeline.EventDone, Summary: string(in.Stage) + " ok"}, nil
			})
		}
		return m, nil, nil
	}
	return f, &out, &errOut
}

// Execute runs the whole command tree on f with args, as main does.
func Execute(t *testing.T, f *factory.Factory, args ...string) error {
	t.Helper()
	root := root.NewCmdRoot(f, "test")
	root.SetArgs(args)
	return root.ExecuteContext(context.Background())
}

// TestDirs is an installation-directory layout under the test's temporary
// directory.
func TestDirs(t *testing.T) *installdir.Dirs {
	t.Helper()
	d, err := installdir.New(t.TempDir(), nil)
	require.NoError(t, err)
	return d
}

// WorkItem files an issue titled title on testenv.Repo and labels it
// cogworks:run, as a person starts a pipeline, and returns its number.
func WorkItem(t *testing.T, env *testenv.Env, title string) int {
	t.Helper()
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", title, "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	return n
}
