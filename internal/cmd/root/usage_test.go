package root_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/root"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/testenv"
)

func TestUsageErrorsExitTwoWithSeeHelp(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	tests := []struct {
		name string
		args []string
	}{
		{"unknown command", []string{"frobnicate"}},
		{"unknown subcommand", []string{"registry", "frobnicate"}},
		{"extra argument", []string{"status", "extra", "--issue", "1", "--repo", "a/b"}},
		{"extra argument to health", []string{"health", "go", "python"}},
		{"bad flag", []string{"status", "--frobnicate"}},
		{"bad flag value", []string{"process", "--issue", "one"}},
		{"unknown flag of a group", []string{"registry", "--frobnicate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdtest.Execute(t, f, tt.args...)
			require.Error(t, err)
			assert.Equal(t, 2, factory.ExitCode(err), err.Error())
			assert.Contains(t, err.Error(), "see --help")
		})
	}
}

func TestEveryCommandsHelpHasExamplesEnvironmentAndExitCodes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	root := root.NewCmdRoot(f, "test")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		t.Run(c.CommandPath(), func(t *testing.T) {
			var out bytes.Buffer
			c.SetOut(&out)
			require.NoError(t, c.Help())
			text := out.String()
			assert.Contains(t, text, "Examples:")
			assert.Contains(t, text, "Exit codes:")
			if c.Runnable() && c.HasParent() && c.Name() != "registry" {
				assert.Contains(t, text, "Environment:")
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// snakeCase matches JSON keys CogWorks writes.
var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

func assertSnakeKeys(t *testing.T, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			assert.Regexp(t, snakeCase, k, "key %s.%s", path, k)
			assertSnakeKeys(t, val, path+"."+k)
		}
	case []any:
		for i, val := range x {
			assertSnakeKeys(t, val, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func TestJSONOutputsUseSnakeCase(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, out, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	sock := goservicetest.Start(t, goservice.Options{})
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".cogworks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, ".cogworks", "services.toml"),
		[]byte(fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n", sock)), 0o644))

	runs := [][]string{
		{"process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", ws, "--max-steps", "3", "--output", "json"},
		{"status", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", ws, "--output", "json"},
		{"health", "--workspace", ws, "--output", "json"},
	}
	for _, args := range runs {
		t.Run(args[0], func(t *testing.T) {
			out.Reset()
			require.NoError(t, cmdtest.Execute(t, f, args...))
			dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
			docs := 0
			for dec.More() {
				var v any
				require.NoError(t, dec.Decode(&v))
				assertSnakeKeys(t, v, args[0])
				docs++
			}
			assert.Positive(t, docs)
		})
	}
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "health", "--workspace", ws, "--output", "json"))
	assert.Contains(t, out.String(), `"api_version"`)
	assert.NotContains(t, out.String(), `"APIVersion"`)
}

func TestNoSilentWorkspaceFallbacks(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, _, errOut := cmdtest.TestFactory(t, env)
	missing := filepath.Join(t.TempDir(), "no-such-checkout")

	for _, args := range [][]string{
		{"process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", missing},
		{"process-all", "--repo", testenv.Repo.String(), "--workspace", missing},
		{"status", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", missing},
		{"cost-report", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", missing},
		{"registry", "validate", "--workspace", missing},
		{"health", "--workspace", missing},
		{"doctor", "--repo", testenv.Repo.String(), "--workspace", missing},
	} {
		t.Run(args[0]+" missing workspace", func(t *testing.T) {
			err := cmdtest.Execute(t, f, args...)
			require.Error(t, err)
			assert.Equal(t, 2, factory.ExitCode(err), err.Error())
			assert.Contains(t, err.Error(), missing)
		})
	}

	t.Run("no .cogworks is announced", func(t *testing.T) {
		errOut.Reset()
		require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir()))
		assert.Contains(t, errOut.String(), "no .cogworks/ directory in the workspace: using the built-in defaults")
	})

	t.Run("registry validate on a missing directory", func(t *testing.T) {
		ws := t.TempDir()
		err := cmdtest.Execute(t, f, "registry", "validate", "--workspace", ws)
		require.Error(t, err)
		assert.Equal(t, 2, factory.ExitCode(err))
		assert.Contains(t, err.Error(), filepath.Join(ws, ".cogworks", "interfaces")+" does not exist")
		err = cmdtest.Execute(t, f, "registry", "validate", "--dir", filepath.Join(ws, "contracts"))
		require.Error(t, err)
		assert.Equal(t, 2, factory.ExitCode(err))
		assert.Contains(t, err.Error(), "contracts does not exist")
	})
}

func TestDryRunNeedsNoLLMKeyAndSaysWouldAdvance(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, out, _ := cmdtest.TestFactory(t, env)
	factory.Wire(f) // the production executors, which need an LLM key to be built
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, ".cogworks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ws, config.Path), []byte("[llm]\nprovider = \"anthropic\"\n"), 0o644))

	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", ws)
	require.Error(t, err, "a real step needs the key")
	assert.Contains(t, err.Error(), "COGWORKS_LLM_API_KEY")
	// In Actions the key comes from the secret the shipped workflows read.
	assert.Contains(t, err.Error(), "add the repository secret ANTHROPIC_API_KEY")
	assert.Contains(t, err.Error(), "llm-api-key: ${{ secrets.ANTHROPIC_API_KEY }}")

	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", ws, "--dry-run"))
	assert.Contains(t, out.String(), "would advance")
	assert.Empty(t, env.Sim.Comments(testenv.Repo.String(), 1), "a dry run writes nothing")
}

func TestTextLogsAreText(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	cmdtest.WorkItem(t, env, "t")
	f, out, errOut := cmdtest.TestFactory(t, env)
	f.Getenv = func(k string) string {
		if k == "COGWORKS_LOG_FORMAT" {
			return "text"
		}
		return ""
	}
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "3"))
	require.NotEmpty(t, errOut.String())
	for _, line := range strings.Split(strings.TrimSpace(errOut.String()+out.String()), "\n") {
		assert.False(t, strings.HasPrefix(strings.TrimSpace(line), "{"), "JSON in text mode: %s", line)
	}
	assert.Contains(t, errOut.String(), "level=")

	f.Getenv = func(string) string { return "" }
	errOut.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir()))
	assert.True(t, strings.HasPrefix(errOut.String(), "{"), "JSON when not a terminal: %s", errOut.String())
}
