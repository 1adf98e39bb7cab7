package codegen_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/classify"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/contextpack"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/planner"

	"github.com/cogworks/cogworks/stages/architecture"
	"github.com/cogworks/cogworks/stages/codegen"
	"github.com/cogworks/cogworks/stages/stagekit"
	"github.com/cogworks/cogworks/stages/stagetest"
)

// The layouts are those of real root-package libraries (pflag, go-toml v2,
// dominikbraun/graph) and the edge cases around them.
func TestModulesListTheRootPackageLikeAnyOther(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		files      map[string]string
		wantNames  []string
		wantRoot   string
		wantModule string
	}{
		{
			name: "root-package library",
			files: map[string]string{
				"go.mod": "module github.com/spf13/pflag\n\ngo 1.12\n", "flag.go": "package pflag\n",
				"bool.go": "package pflag\n", "flag_test.go": "package pflag_test\n", "README.md": "# pflag\n",
			},
			wantNames: []string{"pflag"}, wantRoot: "pflag", wantModule: "github.com/spf13/pflag",
		},
		{
			name: "package name is not the module path's last element",
			files: map[string]string{
				"go.mod": "module github.com/pelletier/go-toml/v2\n", "toml.go": "package toml\n",
				"internal/tracker/seen.go": "package tracker\n", "cmd/tomljson/main.go": "package main\n",
			},
			wantNames:  []string{"cmd", "cmd/tomljson", "internal", "internal/tracker", "toml"},
			wantRoot:   "toml",
			wantModule: "github.com/pelletier/go-toml/v2",
		},
		{
			name: "a generator beside the package does not name it",
			files: map[string]string{
				"go.mod": "module github.com/dominikbraun/graph\n", "gen.go": "//go:build ignore\n\npackage main\n",
				"graph.go": "package graph\n",
			},
			wantNames: []string{"graph"}, wantRoot: "graph", wantModule: "github.com/dominikbraun/graph",
		},
		{
			name: "doc.go is read first",
			files: map[string]string{
				"go.mod": "module example.com/lib\n", "a.go": "package lib\n", "doc.go": "// Package lib.\npackage lib\n",
			},
			wantNames: []string{"lib"}, wantRoot: "lib", wantModule: "example.com/lib",
		},
		{
			name:      "a command at the root is named by its module path",
			files:     map[string]string{"go.mod": "module example.com/tool\n", "main.go": "package main\n", "lib/lib.go": "package lib\n"},
			wantNames: []string{"example.com/tool", "lib"}, wantRoot: "example.com/tool", wantModule: "example.com/tool",
		},
		{
			name:      "a package name that is also a directory is named by its module path",
			files:     map[string]string{"go.mod": "module example.com/toml\n", "toml.go": "package toml\n", "toml/x.go": "package x\n"},
			wantNames: []string{"example.com/toml", "toml"}, wantRoot: "example.com/toml", wantModule: "example.com/toml",
		},
		{
			name:      "without go.mod the package name is the name",
			files:     map[string]string{"a.go": "package alpha\n"},
			wantNames: []string{"alpha"}, wantRoot: "alpha",
		},
		{
			name:      "a root file that does not parse is skipped",
			files:     map[string]string{"go.mod": "module example.com/ok\n", "a.go": "packag oops\n", "b.go": "package ok\n"},
			wantNames: []string{"ok"}, wantRoot: "ok", wantModule: "example.com/ok",
		},
		{
			name:      "tests alone at the root are no package",
			files:     map[string]string{"go.mod": "module example.com/e2e\n", "e2e_test.go": "package e2e\n", "lib/lib.go": "package lib\n"},
			wantNames: []string{"lib"}, wantModule: "example.com/e2e",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := stagetest.WriteTree(t, tt.files)
			want := stagekit.Modules{Names: tt.wantNames, Root: tt.wantRoot, ModulePath: tt.wantModule}

			fromWorkspace, err := stagekit.RepoModules(ws)
			require.NoError(t, err)
			assert.Equal(t, want, fromWorkspace, "from the workspace")

			fromPort, err := stagekit.Deps{Repo: contextpack.LocalRepo{Dir: ws}}.Modules(context.Background())
			require.NoError(t, err)
			assert.Equal(t, want, fromPort, "from the Code Repository port")
		})
	}
}

func TestModulesLookupResolvesRootAndImportPaths(t *testing.T) {
	t.Parallel()
	toml := stagekit.Modules{
		Names: []string{"cmd", "internal", "internal/tracker", "toml"}, Root: "toml",
		ModulePath: "github.com/pelletier/go-toml/v2",
	}
	tests := []struct {
		name    string
		Modules stagekit.Modules
		in      string
		want    string // "" means unknown
	}{
		{"root by package name", toml, "toml", "toml"},
		{"root as dot", toml, ".", "toml"},
		{"root as dot slash", toml, "./", "toml"},
		{"root by module path", toml, "github.com/pelletier/go-toml/v2", "toml"},
		{"nested package by import path", toml, "github.com/pelletier/go-toml/v2/internal/tracker", "internal/tracker"},
		{"directory, cleaned", toml, "./internal/", "internal"},
		{"another module's package", toml, "github.com/BurntSushi/toml", ""},
		{"module path without its major version", toml, "github.com/pelletier/go-toml", ""},
		{"import path of a missing package", toml, "github.com/pelletier/go-toml/v2/unstable", ""},
		{"empty", toml, " ", ""},
		{"dot without a root package", stagekit.Modules{Names: []string{"lib"}, ModulePath: "example.com/x"}, ".", ""},
		{"module path without a root package", stagekit.Modules{Names: []string{"lib"}, ModulePath: "example.com/x"}, "example.com/x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := tt.Modules.Lookup(tt.in)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.want != "", ok)
		})
	}
	assert.Equal(t, ".", toml.Dir("toml"), "the root package lives in the root directory")
	assert.Equal(t, "internal/tracker", toml.Dir("internal/tracker"))
}

func TestSpecificationMayNameTheRootPackage(t *testing.T) {
	t.Parallel()
	ws := stagetest.WriteTree(t, map[string]string{
		"go.mod": "module github.com/spf13/pflag\n", "flag.go": "package pflag\n", "internal/x/x.go": "package x\n",
	})
	modules, err := stagekit.RepoModules(ws)
	require.NoError(t, err)
	tests := []struct {
		module  string
		problem string // "" means valid
	}{
		{"pflag", ""},
		{".", ""},
		{"github.com/spf13/pflag", ""},
		{"github.com/spf13/pflag/internal/x", ""},
		{"internal", ""},
		{"flag", `module "flag" does not exist`},
		{"github.com/spf13/cobra", `module "github.com/spf13/cobra" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.module, func(t *testing.T) {
			spec := stagetest.ValidSpec()
			spec.AffectedModules = []architecture.SpecModule{{Name: tt.module}}
			spec.DependencyChanges = nil
			problems := architecture.ValidateSpecification(spec, modules, config.Constraints{}, nil)
			if tt.problem == "" {
				assert.Empty(t, problems)
				return
			}
			require.Len(t, problems, 1)
			assert.Contains(t, problems[0], tt.problem)
			assert.Contains(t, problems[0], "existing modules: internal, internal/x, pflag", "the root package is listed")
		})
	}
}

func TestArchitectureStageAcceptsTheRootPackage(t *testing.T) {
	t.Parallel()
	// The sample repository's module is example.com/widgets; a root
	// package makes "widgets" a module.
	f := stagetest.NewFHFixture(t, map[string]string{"widgets.go": "// Package widgets counts widgets.\npackage widgets\n"})
	spec := stagetest.ValidSpec()
	spec.AffectedModules = []architecture.SpecModule{{Name: "widgets"}, {Name: "example.com/widgets/counter"}}
	f.AddJSON(t, prompts.Architecture, spec)
	snap := f.Snapshot()
	snap.Classification = &stagetest.SampleClassification
	res, err := f.Run(t, pipeline.StageArchitecture, snap)
	require.NoError(t, err)
	assert.Equal(t, pipeline.EventDone, res.Event)
	assert.Equal(t, 1, f.Requests(prompts.Architecture), "the first answer passed the module check")
	assert.Contains(t, f.UserPrompt(t, prompts.Architecture, 0), "widgets", "the root package is in the module list")
}

func TestCodegenContextFindsTheRootPackageByItsModuleName(t *testing.T) {
	t.Parallel()
	ws := stagetest.WriteTree(t, map[string]string{
		"go.mod": "module github.com/spf13/pflag\n", "flag.go": "package pflag\n\nfunc Parse() {}\n",
		"internal/x/x.go": "package x\n\nfunc Unrelated() {}\n",
	})
	snap := pipeline.NewSnapshot("o/r", 1)
	snap.Classification = &classify.Classification{AffectedModules: []string{"pflag"}}
	e := codegen.Executor{Deps: codegen.Deps{Deps: stagekit.Deps{Workspace: ws}}}
	in := engine.StageInput{Snapshot: &snap, Config: config.Default()}
	r := codegen.SWIRun{Item: planner.SubWorkItem{ID: "fix"}, Base: codegen.BaseTree{Repo: contextpack.LocalRepo{Dir: ws}, Overlay: map[string]string{}}}

	cx, err := e.ContextItems(context.Background(), in, r)
	require.NoError(t, err)
	var paths []string
	for _, it := range cx.Items {
		paths = append(paths, it.Path)
	}
	assert.Contains(t, paths, "flag.go", "a plan item without files gets the classification's module, the root package")
	assert.NotContains(t, paths, "internal/x/x.go")
}

// countingRepo counts ReadFile calls: through the GitHub port each is a
// request.
type countingRepo struct {
	contextpack.LocalRepo
	reads int
}

func (r *countingRepo) ReadFile(ctx context.Context, p string) ([]byte, error) {
	r.reads++
	return r.LocalRepo.ReadFile(ctx, p)
}

func TestModulesReadFewRootFilesToNameTheRootPackage(t *testing.T) {
	t.Parallel()
	files := map[string]string{"go.mod": "module example.com/cmds\n"}
	for i := range 50 {
		files[fmt.Sprintf("cmd%02d.go", i)] = "package main\n"
	}
	repo := &countingRepo{LocalRepo: contextpack.LocalRepo{Dir: stagetest.WriteTree(t, files)}}
	got, err := stagekit.Deps{Repo: repo}.Modules(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "example.com/cmds", got.Root, "a root of commands is named by its module path")
	assert.Equal(t, 1+stagekit.MaxRootPackageReads, repo.reads, "go.mod and at most %d root files are read", stagekit.MaxRootPackageReads)
}
