package goservice

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/testkit"
)

func layeredRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/a.go":          "package a\n\n// A is one.\nfunc A() int { return 1 }\n",
		"a/a_test.go":     "package a\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 1 {\n\t\tt.Fatal(\"A\")\n\t}\n}\n",
		"a/sub/s.go":      "package sub\n",
		"b/b.go":          "package b\n",
		"docs/guide.md":   "# guide\n",
		"testdata/t.go":   "package broken(\n",
		"nested/go.mod":   "module example.com/nested\n",
		"nested/n.go":     "package nested\n",
		".git/config":     "[core]\n",
		"_scratch/x.go":   "package x\n",
		"deep/er/x/y.go":  "package x\n",
		"deep/notes.txt":  "not go\n",
		"deep/er/data.md": "data\n",
	})
	return repo
}

func TestPrepareWorkspaceWritesOnlyTheArtifacts(t *testing.T) {
	repo := layeredRepo(t)
	testkit.WriteTree(t, repo, map[string]string{"a.txt": "root file\n", "big.bin": strings.Repeat("x", maxSiblingCopy+1)})
	ws, err := prepareWorkspace(domain.Request{
		Repository: domain.Repository{Path: repo},
		Artifacts: []domain.Artifact{
			{Path: "b/new.go", Content: "package b\n\n// New is new.\nfunc New() {}\n"},
			{Path: "c/c.go", Content: "package c\n"},
		},
	})
	require.NoError(t, err)
	defer ws.Remove()

	mode := func(rel string) os.FileMode {
		t.Helper()
		info, err := os.Lstat(filepath.Join(ws.dir, filepath.FromSlash(rel)))
		require.NoError(t, err, rel)
		return info.Mode()
	}
	assert.Equal(t, os.ModeSymlink, mode("a")&os.ModeSymlink, "an untouched tree is one link")
	assert.True(t, mode("go.mod").IsRegular(), "go.mod is a copy the go command may update in the scratch (the repository is read-only)")
	assert.True(t, mode("b").IsDir(), "a directory holding an artifact is real")
	assert.True(t, mode("b/b.go").IsRegular(), "a file next to an artifact is a copy (the go command embeds no link)")
	assert.True(t, mode("a.txt").IsRegular(), "the root holds an artifact's directory: its files are copies")
	assert.Equal(t, os.ModeSymlink, mode("big.bin")&os.ModeSymlink, "a file above maxSiblingCopy stays a link")
	assert.True(t, mode("b/new.go").IsRegular())
	assert.True(t, mode("c/c.go").IsRegular())
	_, err = os.Lstat(filepath.Join(ws.dir, ".git"))
	assert.ErrorIs(t, err, os.ErrNotExist, ".git is left out")
	assert.ElementsMatch(t, []string{"_scratch", "a", "deep", "docs", "nested", "testdata"}, ws.linkedDirs)

	entries, err := os.ReadDir(filepath.Join(repo, "b"))
	require.NoError(t, err)
	require.Len(t, entries, 1, "the repository is never written")
	_, err = os.Stat(filepath.Join(repo, "c"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	ws.Remove()
	_, err = os.Stat(filepath.Join(repo, "a", "a.go"))
	assert.NoError(t, err, "removing the workspace leaves the link targets alone")
}

func TestPackagePatternsCoverLinkedTrees(t *testing.T) {
	repo := layeredRepo(t)
	ws, err := prepareWorkspace(domain.Request{
		Repository: domain.Repository{Path: repo},
		Artifacts:  []domain.Artifact{{Path: "deep/z.go", Content: "package deep\n"}},
	})
	require.NoError(t, err)
	defer ws.Remove()
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		// docs holds no Go, testdata/_scratch are not walked, nested is a module.
		{"root", []string{"./..."}, []string{"./...", "./a/...", "./b/...", "./deep/er/..."}},
		{"module path", []string{"example.com/m/..."}, []string{"example.com/m/...", "./a/...", "./b/...", "./deep/er/..."}},
		{"subtree", []string{"./deep/..."}, []string{"./deep/...", "./deep/er/..."}},
		{"linked root walks itself", []string{"./a/..."}, []string{"./a/..."}},
		{"plain packages unchanged", []string{"./a", "example.com/m/deep"}, []string{"./a", "example.com/m/deep"}},
		{"duplicates dropped", []string{"./...", "./..."}, []string{"./...", "./a/...", "./b/...", "./deep/er/..."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ws.packagePatterns(tt.patterns...))
		})
	}
}

// TestToolchainSeesLinkedPackages runs the real toolchain: packages only in
// the repository (behind links) are built, vetted, tested and scanned just
// as packages holding an artifact.
func TestToolchainSeesLinkedPackages(t *testing.T) {
	e2e.RequireToolchain(t)
	repo := layeredRepo(t)
	testkit.WriteTree(t, repo, map[string]string{"a/sub/s.go": "package sub\n\nfunc S() int { return \"x\" }\n"})
	s := NewHandler(Options{}).(*service)
	ctx := context.Background()
	req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
		{Path: "c/c.go", Content: "package c\n\n// C is three.\nfunc C() int { return 3 }\n"},
		{Path: "c/c_test.go", Content: "package c\n\nimport \"testing\"\n\nfunc TestC(t *testing.T) {\n\tif C() != 3 {\n\t\tt.Fatal(\"C\")\n\t}\n}\n"},
	}}

	res, err := s.validate(ctx, req)
	require.NoError(t, err)
	diags := res.(domain.DiagnosticsResult).Diagnostics
	require.NotEmpty(t, diags)
	assert.Equal(t, "a/sub/s.go", diags[0].Location.File, "%+v", diags)
	assert.Equal(t, domain.CategoryTypeError, diags[0].Category)

	testkit.WriteTree(t, repo, map[string]string{"a/sub/s.go": "package sub\n"})
	sim, err := s.simulate(ctx, withParams(t, req, domain.SimulateParams{Timeout: (time.Minute).String()}))
	require.NoError(t, err)
	out := sim.(domain.SimulateResult)
	assert.True(t, out.Passed, out.Output)
	var names []string
	for _, tr := range out.Tests {
		names = append(names, tr.Package+"."+tr.Name)
	}
	assert.ElementsMatch(t, []string{"example.com/m/a.TestA", "example.com/m/c.TestC"}, names)

	ext, err := s.extractInterfaces(ctx, req)
	require.NoError(t, err)
	var decls []string
	for _, d := range ext.(domain.ExtractResult).Declarations {
		decls = append(decls, d.Package+"."+d.Name)
	}
	assert.Contains(t, decls, "example.com/m/a.A")
	assert.Contains(t, decls, "example.com/m/c.C")
}

func withParams(t *testing.T, req domain.Request, params any) domain.Request {
	t.Helper()
	raw, err := json.Marshal(params)
	require.NoError(t, err)
	req.Params = raw
	return req
}

func TestRelPathMapsToolchainPaths(t *testing.T) {
	w := &workspace{dir: filepath.FromSlash("/tmp/cogworks-go-222"), repo: filepath.FromSlash("/src/repo")}
	tests := []struct {
		name, printed, want string
	}{
		{"relative", "./can/fmt.go", "can/fmt.go"},
		{"bare", "can/fmt.go", "can/fmt.go"},
		{"under the workspace", "/tmp/cogworks-go-222/can/fmt.go", "can/fmt.go"},
		{"resolved through a link", "/src/repo/a/a.go", "a/a.go"},
		{"replayed from another workspace's cached vet run", "/tmp/TestX/001/cogworks-go-111/can/fmt.go", "can/fmt.go"},
		{"outside every workspace", "/usr/local/go/src/fmt/print.go", "/usr/local/go/src/fmt/print.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, w.relPath(filepath.FromSlash(tt.printed)))
		})
	}
}

// TestTouchedPackageBuildsAndWritesLikeACheckout runs a package that embeds
// a file next to its sources and a directory below them, and whose test
// writes next to them and walks its testdata, with an artifact in the
// package: the go command refused to embed the links the workspace used to
// hold ("cannot embed irregular file"), the write went through the link
// into the read-only repository and filepath.WalkDir saw the linked
// testdata as one file. The repository is left as it was.
func TestTouchedPackageBuildsAndWritesLikeACheckout(t *testing.T) {
	e2e.RequireToolchain(t)
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":             "module example.com/emb\n\ngo 1.22\n",
		"p/greeting.txt":     "hello\n",
		"p/tpl/a.txt":        "a\n",
		"p/tpl/sub/b.txt":    "b\n",
		"p/other/o.txt":      "not embedded\n",
		"p/testdata/c/1.txt": "case\n",
		"p/p.go":             "package p\n\nimport _ \"embed\"\n\n//go:embed greeting.txt\nvar greeting string\n\n// Greeting is the embedded greeting.\nfunc Greeting() string { return greeting }\n",
		"p/templates.go":     "package p\n\nimport \"embed\"\n\n// Templates are embedded.\n//\n//go:embed tpl\nvar Templates embed.FS\n",
	})
	test := "package p\n\nimport (\n\t\"io/fs\"\n\t\"os\"\n\t\"path/filepath\"\n\t\"testing\"\n)\n\n" +
		"func TestGreeting(t *testing.T) {\n\tif Greeting() != \"hello\\n\" {\n\t\tt.Fatalf(\"greeting %q\", Greeting())\n\t}\n" +
		"\tif err := os.WriteFile(\"greeting.txt\", []byte(\"golden\\n\"), 0o644); err != nil {\n\t\tt.Fatal(err)\n\t}\n" +
		"\tif err := os.Symlink(\"p.go\", \"p.go_link\"); err != nil {\n\t\tt.Fatal(err)\n\t}\n" +
		"\tif b, err := Templates.ReadFile(\"tpl/sub/b.txt\"); err != nil || string(b) != \"b\\n\" {\n\t\tt.Fatal(string(b), err)\n\t}\n" +
		"\tvar cases []string\n\tif err := filepath.WalkDir(\"testdata\", func(p string, d fs.DirEntry, err error) error {\n" +
		"\t\tif err == nil && d.Type().IsRegular() {\n\t\t\tcases = append(cases, p)\n\t\t}\n\t\treturn err\n\t}); err != nil || len(cases) != 1 {\n\t\tt.Fatal(cases, err)\n\t}\n}\n"
	s := NewHandler(Options{}).(*service)
	req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{{Path: "p/p_test.go", Content: test}}}
	sim, err := s.simulate(context.Background(), withParams(t, req, domain.SimulateParams{Packages: []string{"./p"}, Timeout: time.Minute.String()}))
	require.NoError(t, err)
	out := sim.(domain.SimulateResult)
	assert.True(t, out.Passed, out.Output)
	got, err := os.ReadFile(filepath.Join(repo, "p", "greeting.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hello\n", string(got), "the repository is never written")
	_, err = os.Lstat(filepath.Join(repo, "p", "p.go_link"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	ws, err := prepareWorkspace(req)
	require.NoError(t, err)
	defer ws.Remove()
	for rel, want := range map[string]os.FileMode{"p/tpl": os.ModeDir, "p/tpl/sub": os.ModeDir, "p/testdata/c": os.ModeDir, "p/other": os.ModeSymlink} {
		info, err := os.Lstat(filepath.Join(ws.dir, filepath.FromSlash(rel)))
		require.NoError(t, err, rel)
		assert.Equal(t, want, info.Mode().Type(), "%s: an embedded directory and testdata are real, another stays one link", rel)
	}
}

// TestWorkspaceCopyBudget: an artifact whose //go:embed names every entry
// of the root copies no more than the budget; the rest stays links.
func TestWorkspaceCopyBudget(t *testing.T) {
	repo := layeredRepo(t)
	testkit.WriteTree(t, repo, map[string]string{"data/x.bin": strings.Repeat("x", 600), "data/y.bin": strings.Repeat("y", 600)})
	ws, err := prepareWorkspaceCopying(domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
		{Path: "all.go", Content: "package m\n\nimport \"embed\"\n\n//go:embed *\nvar all embed.FS\n"},
	}}, 1000)
	require.NoError(t, err)
	defer ws.Remove()
	assert.LessOrEqual(t, ws.copied, int64(1000))
	var links int
	for _, f := range []string{"data/x.bin", "data/y.bin"} {
		info, err := os.Lstat(filepath.Join(ws.dir, filepath.FromSlash(f)))
		require.NoError(t, err, f)
		if info.Mode()&os.ModeSymlink != 0 {
			links++
		}
	}
	assert.Equal(t, 1, links, "one of the two 600-byte files is over the 1,000-byte budget")
	info, err := os.Lstat(filepath.Join(ws.dir, "data"))
	require.NoError(t, err)
	assert.True(t, info.IsDir(), "the embedded directory itself is real")
}

// TestEmbeddedTreeLeavesLinksOut: a symbolic link inside an embedded
// directory of the repository (to a host file outside it) is not followed
// when the directory is mirrored: the workspace never holds the host
// file's content, and the go command reports the missing file itself.
func TestEmbeddedTreeLeavesLinksOut(t *testing.T) {
	repo := layeredRepo(t)
	outside := filepath.Join(t.TempDir(), "host-secret")
	require.NoError(t, os.WriteFile(outside, []byte("secret\n"), 0o600))
	testkit.WriteTree(t, repo, map[string]string{"b/tpl/ok.txt": "ok\n"})
	require.NoError(t, os.Symlink(outside, filepath.Join(repo, "b", "tpl", "evil.txt")))
	ws, err := prepareWorkspace(domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{
		{Path: "b/embed.go", Content: "package b\n\nimport \"embed\"\n\n//go:embed tpl\nvar tpl embed.FS\n"},
	}})
	require.NoError(t, err)
	defer ws.Remove()
	info, err := os.Lstat(filepath.Join(ws.dir, "b", "tpl", "ok.txt"))
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	_, err = os.Lstat(filepath.Join(ws.dir, "b", "tpl", "evil.txt"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a link in the repository is left out, never copied through")
}

func TestEmbedFirstElements(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"file and dir", "package p\n//go:embed a.txt tpl/*.html\nvar x string\n", []string{"a.txt", "tpl"}},
		{"quoted and all", "//go:embed \"sp ace.txt\" `all:static/x` all:web\n", []string{"sp", "ace.txt", "static", "web"}},
		{"indented", "func f() {}\n\t//go:embed   data\n", []string{"data"}},
		{"not a directive", "//go:embedded x\n// go:embed y\nvar s = \"//go:embed z\"\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, embedFirstElements(tt.src))
		})
	}
}
