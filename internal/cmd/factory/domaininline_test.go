package factory_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
)

func TestInlineSendsTheRepositoryInsteadOfItsPath(t *testing.T) {
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":      "module example.com/w\n\ngo 1.22\n",
		"w.go":        "package w\n\nfunc Old() {}\n",
		"sub/s.go":    "package sub\n",
		".git/config": "[core]\n",
		"blob.bin":    "\xff\xfe\x00binary",
	})
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(repo, "passwd")))
	req := domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{{Path: "w.go", Content: "package w\n\nfunc New() {}\n"}}}
	got, err := factory.Inline(req)
	require.NoError(t, err)
	assert.Empty(t, got.Repository.Path, "the service is given no path to read")
	byPath := map[string]string{}
	var paths []string
	for _, a := range got.Artifacts {
		byPath[a.Path] = a.Content
		paths = append(paths, a.Path)
	}
	sort.Strings(paths)
	assert.Equal(t, []string{"go.mod", "sub/s.go", "w.go"}, paths, "no .git, symbolic link or binary file; each path once")
	assert.Contains(t, byPath["w.go"], "New", "the request's artifact wins over the repository's file")

	same, err := factory.Inline(domain.Request{Artifacts: req.Artifacts})
	require.NoError(t, err)
	assert.Equal(t, req.Artifacts, same.Artifacts, "a request without a path is unchanged")
}

// TestInlinedRequestIsEnoughForTheGoService: the Go domain service builds
// and checks a package from the inlined request alone, as it must when it
// runs in its own container without this process's files.
func TestInlinedRequestIsEnoughForTheGoService(t *testing.T) {
	e2e.RequireToolchain(t)
	sock := goservicetest.Start(t, goservice.Options{})
	client, err := domain.NewClient(domain.ServiceConfig{Name: "go", Transport: domain.TransportUnix, Endpoint: sock})
	require.NoError(t, err)
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":      "module example.com/w\n\ngo 1.22\n",
		"lib/lib.go":  "package lib\n\n// Answer is used by w.go.\nconst Answer = 42\n",
		"w.go":        "package w\n",
		"README.md":   "# w\n",
		"docs/a.txt":  "notes\n",
		".git/HEAD":   "ref: refs/heads/main\n",
		"lib/data.go": "package lib\n",
	})
	artifact := domain.Artifact{Path: "w.go", Content: "package w\n\nimport \"example.com/w/lib\"\n\n// Twice doubles lib.Answer.\nfunc Twice() int { return 2 * lib.Answer }\n"}
	d := factory.InlineRepoDomain{Inner: client}
	res, err := d.Validate(context.Background(), domain.Request{Repository: domain.Repository{Path: repo}, Artifacts: []domain.Artifact{artifact}})
	require.NoError(t, err)
	for _, diag := range res.Diagnostics {
		assert.NotEqual(t, "error", string(diag.Severity), "%+v", diag)
	}
	// Without lib/ (which only the inlined repository provides) the same
	// artifact does not build: the service really used the inlined files.
	res, err = client.Validate(context.Background(), domain.Request{Artifacts: []domain.Artifact{artifact}})
	require.NoError(t, err)
	assert.NotEmpty(t, res.Diagnostics)
}

func TestServeRunnerWrapsTheDomainServiceWhenInlining(t *testing.T) {
	sock := goservicetest.Start(t, goservice.Options{})
	services := filepath.Join(t.TempDir(), "services.toml")
	require.NoError(t, os.WriteFile(services, []byte("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = \""+sock+"\"\n"), 0o600))
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	f.Getenv = func(k string) string {
		if k == "COGWORKS_DOMAIN_SERVICES_CONFIG" {
			return services
		}
		return ""
	}
	ws := t.TempDir()
	for _, inlined := range []bool{false, true} {
		ctx := context.Background()
		if inlined {
			ctx = factory.WithDomainRepoInline(ctx)
		}
		d, _, err := f.StageDeps(ctx, env.Client, ws, config.Default(), nil)
		require.NoError(t, err)
		_, wrapped := d.Domain.(factory.InlineRepoDomain)
		assert.Equal(t, inlined, wrapped)
	}
}
