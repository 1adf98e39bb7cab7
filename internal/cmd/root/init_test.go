package root_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/initcmd"
	"github.com/cogworks/cogworks/internal/cmd/initcmd/initfiles"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/scenario"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
)

func TestInitWritesFilesThatLoadAndCreatesLabels(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws))

	cfg, err := config.Load(ws)
	require.NoError(t, err, "the written config loads back")
	assert.Equal(t, config.Default(), cfg, "and holds exactly the defaults")
	raw, err := os.ReadFile(filepath.Join(ws, config.Path))
	require.NoError(t, err)
	assert.Contains(t, string(raw), "# ", "commented")
	assert.Contains(t, string(raw), "input_price_per_mtok")

	scns, err := scenario.LoadScenarios(context.Background(), os.DirFS(ws), cfg.Scenarios.Directory)
	require.NoError(t, err, "the example scenario validates")
	require.Len(t, scns, 1)

	wf, err := os.ReadFile(filepath.Join(ws, ".github", "workflows", "cogworks.yml"))
	require.NoError(t, err)
	assert.Contains(t, string(wf), "uses: cogworks/cogworks@v1")
	assert.NotContains(t, string(wf), "uses: ./")
	assert.NotContains(t, string(wf), "go run")

	have := env.Sim.RepoLabels(testenv.Repo.String())
	for _, l := range initcmd.CogWorksLabels() {
		assert.Contains(t, have, l)
	}
	assert.Contains(t, out.String(), "wrote .cogworks/config.toml")
	assert.Contains(t, out.String(), "labels: created")

	// Again: the files exist, so init refuses and writes nothing.
	require.NoError(t, os.WriteFile(filepath.Join(ws, config.Path), []byte("# mine\n"), 0o644))
	err = cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws)
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	assert.Contains(t, err.Error(), "--force")
	raw, _ = os.ReadFile(filepath.Join(ws, config.Path))
	assert.Equal(t, "# mine\n", string(raw), "kept")

	// --force overwrites; labels already there are not created again.
	env.Sim.ResetRequests()
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws, "--force"))
	raw, _ = os.ReadFile(filepath.Join(ws, config.Path))
	assert.NotEqual(t, "# mine\n", string(raw))
	assert.Contains(t, out.String(), "labels: created 0")
	for _, r := range env.Sim.Requests() {
		assert.NotEqual(t, "POST", r.Method, "no label created twice: %s", r.Path)
	}
}

func TestInitDryRunChangesNothing(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	env.Sim.ResetRequests()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws, "--dry-run"))
	entries, err := os.ReadDir(ws)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file written")
	assert.Zero(t, env.Sim.RequestCount(), "no GitHub request")
	text := out.String()
	assert.Contains(t, text, "would write .cogworks/config.toml")
	assert.Contains(t, text, "would write .github/workflows/cogworks.yml")
	assert.Contains(t, text, "would create label cogworks:run")
}

func TestInitUsage(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	tests := []struct {
		name string
		args []string
	}{
		{"no repo for labels", []string{"init", "--workspace", t.TempDir()}},
		{"missing workspace", []string{"init", "--no-labels", "--workspace", filepath.Join(t.TempDir(), "nope")}},
		{"contradicting flags", []string{"init", "--repo", "a/b", "--no-labels", "--labels-only"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdtest.Execute(t, f, tt.args...)
			require.Error(t, err)
			assert.Equal(t, 2, factory.ExitCode(err))
			assert.True(t, strings.HasSuffix(err.Error(), "(see --help)"), err.Error())
		})
	}
}

// TestInitWorkflowTemplateIsActionlintClean runs actionlint on the
// embedded workflow when actionlint is installed (CI installs it).
func TestInitWorkflowTemplateIsActionlintClean(t *testing.T) {
	t.Parallel()
	bin, err := cmdtest.LookActionlint()
	if err != nil {
		t.Skip("actionlint not installed")
	}
	files, err := initfiles.Files()
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "cogworks.yml")
	require.NoError(t, os.WriteFile(path, files[initfiles.WorkflowPath], 0o644))
	out, err := cmdtest.RunCommand(bin, "-shellcheck=", "-pyflakes=", path)
	require.NoError(t, err, out)
}

// The written config says it shows every key: a key added to
// config.Config without a line in the template (as skip_design_for and
// [trust] once were) fails here.
func TestInitConfigShowsEveryKey(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws, "--no-labels"))
	raw, err := os.ReadFile(filepath.Join(ws, config.Path))
	require.NoError(t, err)
	text := string(raw)

	sections := reflect.TypeOf(config.Config{})
	for i := range sections.NumField() {
		sec := sections.Field(i)
		name := strings.Split(sec.Tag.Get("toml"), ",")[0]
		typ := sec.Type
		if typ.Kind() == reflect.Slice {
			// An array of tables ([[domains]]) has no default entry: it is
			// shown as a commented example.
			assert.Contains(t, text, "\n# [["+name+"]]\n", "tables [[%s]]", name)
			typ = typ.Elem()
		} else {
			assert.Contains(t, text, "\n["+name+"]\n", "section [%s]", name)
		}
		if typ.Kind() != reflect.Struct {
			continue // [gates] is a map: one line per stage
		}
		for j := range typ.NumField() {
			key := strings.Split(typ.Field(j).Tag.Get("toml"), ",")[0]
			if key == "" || key == "-" {
				continue
			}
			assert.Regexp(t, `(?m)^(# )?`+regexp.QuoteMeta(key)+` = `, text, "[%s] %s", name, key)
		}
	}
}

// TestInitWithoutCredentialsWritesNothing: an init that cannot create the
// labels fails before writing a file, so that its re-run with credentials
// does not meet its own files and demand --force.
func TestInitWithoutCredentialsWritesNothing(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	f.GitHub = func(context.Context) (factory.Client, error) {
		return nil, &factory.UsageError{Err: errors.New("no GitHub credentials: set COGWORKS_GITHUB_TOKEN")}
	}
	ws := t.TempDir()
	err := cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws)
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	assert.Contains(t, err.Error(), "no GitHub credentials")
	assert.Contains(t, err.Error(), "nothing written")
	assert.Contains(t, err.Error(), "--no-labels", "the error names the way to write the files alone")
	entries, rerr := os.ReadDir(ws)
	require.NoError(t, rerr)
	assert.Empty(t, entries, "no file written")
	assert.NotContains(t, out.String(), "wrote")

	// Without labels no credentials are needed.
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", ws, "--no-labels"))
	assert.FileExists(t, filepath.Join(ws, config.Path))
}

// TestInitWritesADomainPerLanguage: init in a Python, TypeScript,
// JavaScript or Rust checkout writes an active [[domains]] table of the
// matching preset, which loads, so the pipeline's stages have a service
// for the repository's files from the first run (before, init wrote only a
// commented example and said to register a service in
// .cogworks/services.toml). A Go module gets none; a project in a
// subdirectory gets a commented table, since the commands run at the root.
func TestInitWritesADomainPerLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		want    []string
		comment string
	}{
		{name: "pyproject only", files: map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n", "src/x/__init__.py": ""}, want: []string{"python"}},
		{name: "setup.py", files: map[string]string{"setup.py": "", "x.py": ""}, want: []string{"python"}},
		{name: "typescript by tsconfig", files: map[string]string{"package.json": "{}", "tsconfig.json": "{}"}, want: []string{"typescript"}},
		{name: "typescript by dependency", files: map[string]string{"package.json": `{"devDependencies": {"typescript": "^5"}}`}, want: []string{"typescript"}},
		{name: "javascript", files: map[string]string{"package.json": `{"scripts": {"test": "node --test"}}`}, want: []string{"javascript"}},
		{name: "rust", files: map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"}, want: []string{"rust"}},
		{name: "go and python", files: map[string]string{"go.mod": "module x\n", "tools/pyproject.toml": ""}, comment: "# preset = \"python\""},
		{name: "go", files: map[string]string{"go.mod": "module x\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			testkit.WriteTree(t, ws, tt.files)
			f := &factory.Factory{IO: factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Getenv: func(string) string { return "" }}
			require.NoError(t, initcmd.WriteFiles(f, &initcmd.InitOptions{Workspace: ws}))
			cfg, err := config.Load(ws)
			require.NoError(t, err, "the written config loads")
			var got []string
			for _, d := range cfg.Domains {
				got = append(got, d.Preset)
			}
			assert.Equal(t, tt.want, got)
			raw, err := os.ReadFile(filepath.Join(ws, config.Path))
			require.NoError(t, err)
			if tt.comment != "" {
				assert.Contains(t, string(raw), tt.comment, "a subdirectory's project gets a commented table")
			}
			out := f.IO.Out.(*bytes.Buffer).String()
			if len(tt.want) > 0 {
				assert.Contains(t, out, "[[domains]] for "+tt.want[0])
				assert.NotContains(t, out, "no domain service covers")
			}
		})
	}
}

// writeGitConfig makes dir a checkout whose git config has the given text.
func writeGitConfig(t *testing.T, dir, config string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(config), 0o644))
}

func TestInitTakesTheRepoFromTheOriginRemote(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	f, out, _ := cmdtest.TestFactory(t, env)
	ws := t.TempDir()
	writeGitConfig(t, ws, "[remote \"origin\"]\n\turl = https://github.com/"+testenv.Repo.String()+".git\n")
	require.NoError(t, cmdtest.Execute(t, f, "init", "--workspace", ws, "--dry-run"))
	assert.Contains(t, out.String(), "would create label cogworks:run")
	assert.Contains(t, out.String(), testenv.Repo.String())

	// $GITHUB_REPOSITORY, as in Actions, comes first.
	f.Getenv = func(k string) string {
		if k == "GITHUB_REPOSITORY" {
			return "acme/elsewhere"
		}
		return ""
	}
	out.Reset()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--workspace", ws, "--dry-run"))
	assert.Contains(t, out.String(), "acme/elsewhere")
}
