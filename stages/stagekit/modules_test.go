package stagekit

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepoModulesListsTopLevelAndNestedGoPackages(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, p := range []string{
		"go.mod", "README.md",
		"counter/counter.go", "firmware/motor/motor.go", "firmware/README.md",
		"firmware/docs/notes.md", "docs/adr/0001.md", "deep/a/b/c.go",
		".github/workflows/ci.yml", "vendor/x/x.go", "testdata/t.txt", "counter/testdata/x.go",
	} {
		full := filepath.Join(ws, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(ws, "empty", "sub"), 0o755))
	got, err := RepoModules(ws)
	require.NoError(t, err)
	assert.Equal(t, []string{"counter", "deep", "docs", "firmware", "firmware/motor"}, got.Names)
	assert.Empty(t, got.Root, "no Go file at the root: no root package")

	_, err = RepoModules(filepath.Join(ws, "missing"))
	assert.ErrorContains(t, err, "missing")
}

func TestCheckGeneratedPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		want string // "" means allowed
	}{
		{"counter/hourly.go", ""},
		{"docs/github/workflows.md", ""},
		{"a..b/file.go", ""},
		{".github/workflows/ci.yml", ".github/workflows/"},
		{"./.github/workflows/deploy.yaml", ".github/workflows/"},
		{".GitHub/Workflows/x.yml", ".github/workflows/"},
		{".cogworks/config.toml", ".cogworks/"},
		{"counter/../.cogworks/x", `".."`},
		{"../outside.go", `".."`},
		{"/etc/passwd", "absolute"},
		{`C:\x.go`, "absolute"},
		{"", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			err := CheckGeneratedPaths([]string{tt.path})
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), fmt.Sprintf("%q", tt.path), "the error names the path")
		})
	}
	err := CheckGeneratedPaths([]string{"ok.go", "/abs.go", ".cogworks/a"})
	assert.Len(t, ErrorLines(err), 2, "every offending path is reported")
}

func TestModulesFromPathsMatchesRepoModules(t *testing.T) {
	t.Parallel()
	got := modulesFromPaths([]string{"go.mod", "counter/counter.go", "firmware/motor/motor.go", "firmware/docs/x.md", ".cogworks/a.toml", "vendor/a/b.go"})
	assert.Equal(t, []string{"counter", "firmware", "firmware/motor"}, got)
}

// A src/-layout Python repository is its packages, not a module "src":
// a specification naming the real package validates (issue 27).
func TestModulesSeeSrcLayoutPythonPackages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		files     []string
		want      []string
		lookup    map[string]string // name → listed ("" for unknown)
		wantDirOf map[string]string
	}{
		{name: "src layout", files: []string{"pyproject.toml", "src/pkg/__init__.py", "src/pkg/calc.py", "tests/test_calc.py", "web/app.ts"},
			want:      []string{"pkg", "tests", "web"},
			lookup:    map[string]string{"pkg": "pkg", "src/pkg": "pkg", "./src/pkg/": "pkg", "src": ""},
			wantDirOf: map[string]string{"pkg": "src/pkg", "tests": "tests"}},
		{name: "flat layout is unchanged", files: []string{"pyproject.toml", "pkg/__init__.py", "tests/test_x.py"},
			want: []string{"pkg", "tests"}, lookup: map[string]string{"pkg": "pkg"}},
		{name: "a TypeScript src/ without __init__.py stays src", files: []string{"package.json", "src/index.ts", "src/util/x.ts"},
			want: []string{"src"}, lookup: map[string]string{"src": "src"}},
		{name: "go is unchanged", files: []string{"go.mod", "counter/counter.go", "firmware/motor/motor.go"},
			want: []string{"counter", "firmware", "firmware/motor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for _, p := range tt.files {
				full := filepath.Join(ws, filepath.FromSlash(p))
				require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
				require.NoError(t, os.WriteFile(full, []byte("x"), 0o644))
			}
			got, err := RepoModules(ws)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Names)
			fromListing, err := Deps{Repo: memRepo(tt.files)}.Modules(context.Background())
			require.NoError(t, err)
			assert.Equal(t, got.Names, fromListing.Names, "the listing agrees with the workspace")
			for name, want := range tt.lookup {
				listed, ok := got.Lookup(name)
				assert.Equal(t, want != "", ok, name)
				assert.Equal(t, want, listed, name)
			}
			for listed, dir := range tt.wantDirOf {
				assert.Equal(t, dir, got.Dir(listed))
			}
		})
	}
}

// memRepo is a file listing whose files read as "x".
type memRepo []string

func (m memRepo) ListFiles(context.Context) ([]string, error) { return m, nil }
func (m memRepo) ReadFile(_ context.Context, p string) ([]byte, error) {
	for _, f := range m {
		if f == p {
			return []byte("x"), nil
		}
	}
	return nil, fs.ErrNotExist
}
