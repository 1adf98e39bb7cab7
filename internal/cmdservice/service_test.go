package cmdservice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/sandbox"
)

// post sends one envelope to h and decodes the response.
func post(t *testing.T, h http.Handler, method string, req domain.Request) domain.Response {
	t.Helper()
	req.Method, req.RequestID = method, "r1"
	if req.APIVersion == "" {
		req.APIVersion = domain.APIVersion
	}
	body, err := json.Marshal(req)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, domain.PathPrefix+method, bytes.NewReader(body)))
	var resp domain.Response
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &resp))
	return resp
}

func noSandbox() Options {
	return Options{ServiceOptions: sandbox.ServiceOptions{Isolation: &sandbox.Isolation{Mode: sandbox.Mode("none"), Reason: "test host"}}}
}

func TestCapabilitiesFollowTheConfiguredCommands(t *testing.T) {
	tests := []struct {
		name string
		d    Domain
		want []string
	}{
		{"tests only", Domain{Name: "t", ArtifactTypes: []string{".x"}, Test: "make test"},
			[]string{domain.MethodHandshake, domain.MethodSimulate}},
		{"everything", Domain{Name: "t", ArtifactTypes: []string{".x"}, Test: "t", Format: "f", Checks: []string{"c"}},
			[]string{domain.MethodHandshake, domain.MethodValidate, domain.MethodNormalise, domain.MethodSimulate}},
		{"a language the repository map reads", Domain{Name: "t", ArtifactTypes: []string{".py"}, Test: "t"},
			[]string{domain.MethodHandshake, domain.MethodSimulate, domain.MethodRepoMap}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHandler(context.Background(), tt.d, noSandbox())
			resp := post(t, h, domain.MethodHandshake, domain.Request{})
			require.Equal(t, domain.StatusOK, resp.Status)
			var hs domain.HandshakeResult
			require.NoError(t, json.Unmarshal(resp.Result, &hs))
			assert.Equal(t, tt.want, hs.Capabilities)
			assert.Equal(t, "t", hs.Domain)
			assert.Equal(t, tt.d.ArtifactTypes, hs.ArtifactTypes)
		})
	}
}

func TestUndeclaredMethodIsUnsupported(t *testing.T) {
	h := NewHandler(context.Background(), Domain{Name: "t", ArtifactTypes: []string{".x"}, Test: "make test"}, noSandbox())
	for _, m := range []string{domain.MethodValidate, domain.MethodRepoMap, "no_such_method"} {
		resp := post(t, h, m, domain.Request{})
		require.NotNil(t, resp.Error, m)
		assert.Equal(t, domain.CodeUnsupportedMethod, resp.Error.Code, m)
	}
}

func TestSimulateRejectsBadRequestsBeforeRunningAnything(t *testing.T) {
	h := NewHandler(context.Background(), Domain{Name: "t", ArtifactTypes: []string{".x"}, Test: "make test"}, noSandbox())
	tests := []struct {
		name string
		req  domain.Request
		code domain.ErrorCode
		msg  string
	}{
		{"escaping artifact", domain.Request{Artifacts: []domain.Artifact{{Path: "../x", Content: "x"}}}, domain.CodeInvalidRequest, `"../x"`},
		{"absolute artifact", domain.Request{Artifacts: []domain.Artifact{{Path: "/etc/x", Content: "x"}}}, domain.CodeInvalidRequest, `"/etc/x"`},
		{"filter without test_one", domain.Request{Params: json.RawMessage(`{"filter":"t1"}`)}, domain.CodeInvalidRequest, "test_one"},
		{"bad timeout", domain.Request{Params: json.RawMessage(`{"timeout":"soon"}`)}, domain.CodeInvalidRequest, `"soon"`},
		{"old api", domain.Request{APIVersion: "0.9.0"}, domain.CodeAPIVersionMismatch, "0.9.0"},
		{"missing repository", domain.Request{Repository: domain.Repository{Path: "/no/such/dir"}}, domain.CodeArtifactNotFound, "/no/such/dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := post(t, h, domain.MethodSimulate, tt.req)
			require.NotNil(t, resp.Error)
			assert.Equal(t, tt.code, resp.Error.Code)
			assert.Contains(t, resp.Error.Message, tt.msg)
		})
	}
}

// TestNoSandboxRefuses: on a host without isolation the service runs no
// command unless the operator opted out.
func TestNoSandboxRefuses(t *testing.T) {
	s := NewHandler(context.Background(), Domain{Name: "t", ArtifactTypes: []string{".x"}, Test: "touch /tmp/ran"}, noSandbox()).(*service)
	ws, err := prepareWorkspace(domain.Request{})
	require.NoError(t, err)
	defer ws.Remove()
	_, err = s.run.run(context.Background(), ws, command{line: "touch ran", timeout: time.Second})
	var uerr *sandbox.UnavailableError
	require.ErrorAs(t, err, &uerr)
	_, statErr := os.Stat(filepath.Join(ws.dir, "ran"))
	assert.True(t, errors.Is(statErr, os.ErrNotExist), "the command must not have run")
}

func TestPrepareWorkspace(t *testing.T) {
	repo := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(repo, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("src/a.py", "a")
	write("src/old.py", "old")
	write(".git/config", "secret remote")
	write(".cogworks/scenarios/s1/scenario.toml", "held out")
	write("held/x.txt", "held out too")
	write(".cogworks/config.toml", "[scenarios]\ndirectory = \"held\"\n")
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(repo, "link")))
	write("docs/shared.py", "shared")
	link := func(target, rel string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(repo, rel)), 0o755))
		require.NoError(t, os.Symlink(target, filepath.Join(repo, rel)))
	}
	// python-semver links docs/advanced/coerce.py into tests/, which its
	// conftest imports, and node_modules/.bin holds links whose targets
	// are relative to where the link is: in-repository links stay links.
	link("../docs/shared.py", "tests/shared.py")
	link("../.git/config", "tests/remote")
	link("../held/x.txt", "tests/held.txt")
	link("../docs", "tests/docs")
	link("../../outside", "tests/outside")

	for _, tt := range []struct {
		stage   string
		visible bool
	}{{"code-generation", false}, {scenarioStage, true}} {
		t.Run(tt.stage, func(t *testing.T) {
			ws, err := prepareWorkspace(domain.Request{
				Stage: tt.stage, Repository: domain.Repository{Path: repo},
				Artifacts: []domain.Artifact{
					{Path: "src/a.py", Content: "new a"},
					{Path: "src/old.py", Delete: true},
					{Path: "pkg/b.py", Content: "b"},
					{Path: "held/planted.txt", Content: "x"},
				},
			})
			require.NoError(t, err)
			defer ws.Remove()
			read := func(rel string) string {
				data, err := os.ReadFile(filepath.Join(ws.dir, rel))
				if err != nil {
					return "<absent>"
				}
				return string(data)
			}
			assert.Equal(t, "new a", read("src/a.py"))
			assert.Equal(t, "b", read("pkg/b.py"))
			assert.Equal(t, "<absent>", read("src/old.py"))
			assert.Equal(t, "<absent>", read(".git/config"))
			_, err = os.Lstat(filepath.Join(ws.dir, "link"))
			assert.True(t, errors.Is(err, os.ErrNotExist), "a link out of the repository is not copied")
			assert.Equal(t, "shared", read("tests/shared.py"), "a link to a file of the repository reads the copy's file")
			assert.Equal(t, "shared", read("tests/docs/shared.py"), "a link to a directory of the repository reads the copy's directory")
			for _, l := range []string{"tests/shared.py", "tests/docs"} {
				text, err := os.Readlink(filepath.Join(ws.dir, l))
				require.NoError(t, err, "%s is a link, as node_modules/.bin's must stay", l)
				assert.False(t, filepath.IsAbs(text), "%s points inside the copy: %s", l, text)
			}
			assert.Equal(t, "<absent>", read("tests/remote"), "a link into .git is not copied")
			assert.Equal(t, "<absent>", read("tests/outside"))
			if tt.visible {
				assert.Equal(t, "held out", read(".cogworks/scenarios/s1/scenario.toml"))
				assert.Equal(t, "held out too", read("held/x.txt"))
				assert.Equal(t, "held out too", read("tests/held.txt"))
			} else {
				assert.Equal(t, "<absent>", read("tests/held.txt"), "a link does not reveal a held-out scenario")
				assert.Equal(t, "<absent>", read(".cogworks/scenarios/s1/scenario.toml"))
				assert.Equal(t, "<absent>", read("held/x.txt"))
				assert.Equal(t, "<absent>", read("held/planted.txt"))
			}
			assert.True(t, ws.files["src/a.py"])
			assert.True(t, ws.files["pkg/b.py"])
			assert.False(t, ws.files["src/old.py"])
		})
	}
}

// TestRepoMapKeepsTheDomainsOwnFiles: in a monorepo each service maps its
// own part; a src/-layout Python package is named for the package, and
// the request's artifacts are laid over the checkout.
func TestRepoMapKeepsTheDomainsOwnFiles(t *testing.T) {
	repo := t.TempDir()
	for name, content := range map[string]string{
		"pyproject.toml":       "[project]\nname = \"calc\"\n",
		"src/calc/__init__.py": "",
		"src/calc/ops.py":      "def add(a, b):\n    return a + b\n",
		"web/app.ts":           "export function render(): string { return '' }\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	h := NewHandler(context.Background(), Domain{Name: "python", ArtifactTypes: []string{".py", ".pyi"}, Test: "pytest"}, noSandbox())
	resp := post(t, h, domain.MethodRepoMap, domain.Request{Repository: domain.Repository{Path: repo},
		Artifacts: []domain.Artifact{{Path: "src/calc/div.py", Content: "def div(a, b):\n    return a / b\n"}}})
	require.Equal(t, domain.StatusOK, resp.Status, "%+v", resp.Error)
	var res domain.RepoMapResult
	require.NoError(t, json.Unmarshal(resp.Result, &res))
	symbols := map[string]string{}
	for _, p := range res.Packages {
		for _, f := range p.Files {
			assert.NotEqual(t, ".ts", filepath.Ext(f.Path), "the TypeScript file is another service's")
			for _, s := range f.Symbols {
				symbols[s.Name] = p.ImportPath
			}
		}
	}
	assert.Contains(t, symbols, "add")
	assert.Contains(t, symbols, "div", "the request's artifact is laid over the checkout")
	assert.Equal(t, "calc", symbols["add"], "a src/-layout package is calc, not src")
}
