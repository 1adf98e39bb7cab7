package domain_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/domain/domaintest"
)

// services is a Go, a Python and a TypeScript fake, registered in order.
func services() (*domain.Router, map[string]*domaintest.Fake) {
	fakes := map[string]*domaintest.Fake{"go": {}, "python": {}, "ts": {}}
	r := domain.NewRouterOf(
		domain.Routed{Name: "go", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".go", "go.mod"}, Capabilities: []string{domain.MethodRepoMap}}, Client: fakes["go"]},
		domain.Routed{Name: "python", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".py", "pyproject.toml"}}, Client: fakes["python"]},
		domain.Routed{Name: "ts", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".ts"}}, Client: fakes["ts"]},
	)
	return r, fakes
}

func arts(paths ...string) []domain.Artifact {
	var out []domain.Artifact
	for _, p := range paths {
		out = append(out, domain.Artifact{Path: p, Content: "x"})
	}
	return out
}

func TestRouterSendsEachPathToItsService(t *testing.T) {
	tests := []struct {
		name   string
		paths  []string
		want   map[string][]string // service → the artifact paths it received
		errSub string
	}{
		{name: "go only keeps the Go service", paths: []string{"a/a.go", "go.sum", "README.md"},
			want: map[string][]string{"go": {"a/a.go", "go.sum", "README.md"}}},
		{name: "python and typescript go to both, context to each", paths: []string{"src/pkg/m.py", "web/app.ts", "README.md"},
			want: map[string][]string{"python": {"src/pkg/m.py", "README.md"}, "ts": {"web/app.ts", "README.md"}}},
		{name: "monorepo splits three ways", paths: []string{"a.go", "b.py", "c.ts"},
			want: map[string][]string{"go": {"a.go"}, "python": {"b.py"}, "ts": {"c.ts"}}},
		{name: "a base name type", paths: []string{"pyproject.toml"},
			want: map[string][]string{"python": {"pyproject.toml"}}},
		{name: "documentation and templates alone go to the first service whole", paths: []string{"README.md", "web/templates/page.tmpl"},
			want: map[string][]string{"go": {"README.md", "web/templates/page.tmpl"}}},
		{name: "nothing covered names the services file", paths: []string{"lib/x.rs", "README.md"},
			errSub: "no domain service covers lib/x.rs, README.md (the registered services declare only .go, .py, .ts, go.mod, pyproject.toml): register one whose artifact_types cover them in .cogworks/services.toml (see docs/domain-services.md)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, fakes := services()
			_, err := r.Validate(context.Background(), domain.Request{Artifacts: arts(tt.paths...)})
			if tt.errSub != "" {
				require.Error(t, err)
				var nse *domain.NoServiceError
				require.True(t, errors.As(err, &nse))
				assert.Equal(t, tt.errSub, err.Error())
				return
			}
			require.NoError(t, err)
			for name, f := range fakes {
				calls := f.Calls(domain.MethodValidate)
				if want, ok := tt.want[name]; ok {
					require.Len(t, calls, 1, name)
					assert.Equal(t, want, calls[0].Paths, name)
				} else {
					assert.Empty(t, calls, name)
				}
			}
		})
	}
}

func TestRouterSimulateAsksEachServiceAboutItsPaths(t *testing.T) {
	r, fakes := services()
	pyDecl := domain.TestDeclaration{File: "tests/test_m.py", Name: "test_add", Package: "tests/test_m.py", Line: 1, EndLine: 2}
	tsDecl := domain.TestDeclaration{File: "web/app.test.ts", Name: "adds", Package: "web/app.test.ts", Line: 3, EndLine: 5}
	fakes["python"].Sims = []domain.SimulateResult{{Passed: false, ExitCode: 1, Output: "1 failed",
		Tests: []domain.TestResult{{Name: "test_add", Package: "tests", Passed: false}}, DeclaredTests: []domain.TestDeclaration{pyDecl}}}
	fakes["ts"].Sims = []domain.SimulateResult{{Passed: true, Output: "ok",
		Tests: []domain.TestResult{{Name: "adds", Package: "web", Passed: true}}, DeclaredTests: []domain.TestDeclaration{tsDecl}}}
	res, err := r.Simulate(context.Background(),
		domain.Request{Artifacts: arts("src/pkg/m.py", "tests/test_m.py", "web/app.ts", "internal/x/x.go", "go.sum")},
		domain.SimulateParams{Packages: []string{"./internal/x"}, Paths: []string{"src/pkg/m.py", "web/app.ts"}})
	require.NoError(t, err)
	assert.Empty(t, fakes["go"].Calls(domain.MethodSimulate), "the Go service covers no changed path")
	py := fakes["python"].Calls(domain.MethodSimulate)
	require.Len(t, py, 1)
	assert.Equal(t, []string{"src/pkg/m.py"}, py[0].Params.Paths)
	assert.Equal(t, []string{"src/pkg/m.py", "tests/test_m.py", "go.sum"}, py[0].Paths)
	ts := fakes["ts"].Calls(domain.MethodSimulate)
	require.Len(t, ts, 1)
	assert.Equal(t, []string{"web/app.ts"}, ts[0].Params.Paths)
	assert.False(t, res.Passed, "one failing run fails the merge")
	assert.Equal(t, 1, res.ExitCode)
	assert.Len(t, res.Tests, 2)
	assert.Equal(t, []domain.TestDeclaration{pyDecl, tsDecl}, res.DeclaredTests, "each service's declarations are kept")
	assert.Contains(t, res.Output, "== python ==\n1 failed")
}

func TestRouterSimulateKeepsGoPackagesWithGo(t *testing.T) {
	r, fakes := services()
	_, err := r.Simulate(context.Background(), domain.Request{Artifacts: arts("a/a.go", "b/b.py")},
		domain.SimulateParams{Packages: []string{"./a"}, Paths: []string{"a/a.go", "b/b.py"}})
	require.NoError(t, err)
	g := fakes["go"].Calls(domain.MethodSimulate)
	require.Len(t, g, 1)
	assert.Equal(t, []string{"./a"}, g[0].Params.Packages)
	p := fakes["python"].Calls(domain.MethodSimulate)
	require.Len(t, p, 1)
	assert.Empty(t, p[0].Params.Packages, "a Go package is not the Python service's")
	assert.Equal(t, []string{"b/b.py"}, p[0].Params.Paths)
}

// With one service every request reaches it as it was: the Go path's
// requests (and so the demo's figures) do not change.
func TestRouterOneServicePassesRequestsThrough(t *testing.T) {
	f := &domaintest.Fake{}
	r := domain.NewRouterOf(domain.Routed{Name: "go", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".go"}}, Client: f})
	req := domain.Request{Artifacts: arts("a.go", "b.txt")}
	_, err := r.Simulate(context.Background(), req, domain.SimulateParams{Packages: []string{"."}})
	require.NoError(t, err)
	_, err = r.Simulate(context.Background(), domain.Request{}, domain.SimulateParams{Packages: []string{"."}})
	require.NoError(t, err, "a base tree with no overlay goes to the first service")
	calls := f.Calls(domain.MethodSimulate)
	require.Len(t, calls, 2)
	assert.Equal(t, []string{"a.go", "b.txt"}, calls[0].Paths)
	assert.Equal(t, domain.SimulateParams{Packages: []string{"."}}, calls[0].Params)
}

func TestRouterWithNoServiceHaltsOrSaysWhatToConfigure(t *testing.T) {
	_, err := domain.NewRouterOf().Validate(context.Background(), domain.Request{Artifacts: arts("m.py")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no domain service is registered")
	assert.Contains(t, err.Error(), ".cogworks/services.toml")

	set := domain.Connect(context.Background(), []domain.ServiceConfig{{Name: "py", Transport: domain.TransportUnix, Endpoint: "/nonexistent/py.sock"}})
	_, err = domain.NewRouter(set).Validate(context.Background(), domain.Request{Artifacts: arts("m.py")})
	var halt *domain.HaltError
	require.True(t, errors.As(err, &halt), "an unavailable service might be the one: halt (ASSERT-EXT-001), got %v", err)
	assert.Equal(t, []string{"m.py"}, halt.Artifacts)
}

func TestRouterRepoMapAsksOnlyServicesOfferingIt(t *testing.T) {
	r, fakes := services()
	_, err := r.RepoMap(context.Background(), domain.Request{})
	require.NoError(t, err)
	assert.Len(t, fakes["go"].Calls(domain.MethodRepoMap), 1)
	assert.Empty(t, fakes["python"].Calls(domain.MethodRepoMap))

	_, err = domain.NewRouterOf().RepoMap(context.Background(), domain.Request{})
	var de *domain.Error
	require.True(t, errors.As(err, &de))
	assert.Equal(t, domain.CodeUnsupportedMethod, de.Code)
}

// normalise and review_rules are optional: a service that does not
// declare them is not called, its files stay as written and it has no
// findings (the built-in command service declares only what it has
// commands for).
func TestRouterOptionalMethods(t *testing.T) {
	tests := []struct {
		name   string
		caps   []string
		called bool
	}{
		{name: "declared", caps: []string{domain.MethodNormalise, domain.MethodReviewRules}, called: true},
		{name: "not declared", caps: []string{domain.MethodValidate, domain.MethodSimulate}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &domaintest.Fake{}
			r := domain.NewRouterOf(domain.Routed{Name: "py", Handshake: domain.HandshakeResult{ArtifactTypes: []string{".py"}, Capabilities: tt.caps}, Client: f})
			req := domain.Request{Artifacts: arts("m.py")}
			norm, err := r.Normalise(context.Background(), req)
			require.NoError(t, err)
			assert.Equal(t, req.Artifacts, norm.Artifacts)
			_, err = r.ReviewRules(context.Background(), req, domain.ReviewRulesParams{})
			require.NoError(t, err)
			assert.Equal(t, tt.called, len(f.Calls(domain.MethodNormalise)) == 1)
			assert.Equal(t, tt.called, len(f.Calls(domain.MethodReviewRules)) == 1)
		})
	}
}
