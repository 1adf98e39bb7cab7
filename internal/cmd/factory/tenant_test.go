package factory_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/e2e"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/installdir"
	"github.com/cogworks/cogworks/internal/server"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
)

// TestRedTeam_InlineSendsNoHeldOutScenario: with --domain-inline-repo the service
// has no repository to mask, so the scenarios (the default directory and
// the configured one) are sent to scenario validation only. Before, every
// stage's request carried them, and a code-generation test read them.
func TestRedTeam_InlineSendsNoHeldOutScenario(t *testing.T) {
	repo := t.TempDir()
	testkit.WriteTree(t, repo, map[string]string{
		"go.mod":                      "module example.com/w\n",
		".cogworks/config.toml":       "[scenarios]\ndirectory = \"qa/held\"\n",
		".cogworks/scenarios/a.toml":  "held out\n",
		"qa/held/b.toml":              "held out\n",
		"qa/other.txt":                "sent\n",
		".cogworks/interfaces/i.toml": "sent\n",
	})
	for _, tt := range []struct {
		stage string
		sent  bool
	}{
		{string(pipeline.StageCodeGeneration), false},
		{string(pipeline.StageReview), false},
		{"", false},
		{string(pipeline.StageScenarioValidation), true},
	} {
		t.Run("stage "+tt.stage, func(t *testing.T) {
			got, err := factory.Inline(domain.Request{Stage: tt.stage, Repository: domain.Repository{Path: repo}})
			require.NoError(t, err)
			paths := map[string]bool{}
			for _, a := range got.Artifacts {
				paths[a.Path] = true
			}
			assert.Equal(t, tt.sent, paths[".cogworks/scenarios/a.toml"])
			assert.Equal(t, tt.sent, paths["qa/held/b.toml"])
			assert.True(t, paths["qa/other.txt"] && paths[".cogworks/interfaces/i.toml"] && paths["go.mod"], "%v", paths)
		})
	}
}

func TestDomainTenantOuterWins(t *testing.T) {
	repo := github.Repo{Owner: "acme", Name: "w"}
	assert.Empty(t, factory.DomainTenant(context.Background()))
	ctx := factory.WithDomainTenant(context.Background(), factory.InstallationTenant(7, repo))
	ctx = factory.WithDomainTenant(ctx, factory.RepoTenant(repo)) // what productionExecutors adds
	assert.Equal(t, "installation/7/repo/acme/w", factory.DomainTenant(ctx), "serve's installation is kept")
	assert.Equal(t, "repo/acme/w", factory.DomainTenant(factory.WithDomainTenant(context.Background(), factory.RepoTenant(repo))))
}

// unavailableDomain fails every call with err.
type unavailableDomain struct{ err error }

func (u unavailableDomain) Validate(context.Context, domain.Request) (domain.DiagnosticsResult, error) {
	return domain.DiagnosticsResult{}, u.err
}
func (u unavailableDomain) Normalise(context.Context, domain.Request) (domain.NormaliseResult, error) {
	return domain.NormaliseResult{}, u.err
}
func (u unavailableDomain) ReviewRules(context.Context, domain.Request, domain.ReviewRulesParams) (domain.DiagnosticsResult, error) {
	return domain.DiagnosticsResult{}, u.err
}
func (u unavailableDomain) Simulate(context.Context, domain.Request, domain.SimulateParams) (domain.SimulateResult, error) {
	return domain.SimulateResult{}, u.err
}
func (u unavailableDomain) ExtractInterfaces(context.Context, domain.Request) (domain.ExtractResult, error) {
	return domain.ExtractResult{}, u.err
}

// recordingDomain records the requests it is given.
type recordingDomain struct {
	unavailableDomain
	reqs *[]domain.Request
}

func (d recordingDomain) Validate(_ context.Context, req domain.Request) (domain.DiagnosticsResult, error) {
	*d.reqs = append(*d.reqs, req)
	return domain.DiagnosticsResult{}, nil
}

func (d recordingDomain) Simulate(_ context.Context, req domain.Request, _ domain.SimulateParams) (domain.SimulateResult, error) {
	*d.reqs = append(*d.reqs, req)
	return domain.SimulateResult{}, nil
}

func TestTenantDomainStampsEveryRequest(t *testing.T) {
	var reqs []domain.Request
	d := factory.TenantDomain{Inner: recordingDomain{reqs: &reqs}, Tenant: "installation/7/repo/acme/w"}
	_, err := d.Validate(context.Background(), domain.Request{Repository: domain.Repository{Tenant: "forged"}})
	require.NoError(t, err)
	_, err = d.Simulate(context.Background(), domain.Request{}, domain.SimulateParams{})
	require.NoError(t, err)
	require.Len(t, reqs, 2)
	for _, r := range reqs {
		assert.Equal(t, "installation/7/repo/acme/w", r.Repository.Tenant)
	}
}

// servicesFactory is a factory whose domain services config names the Go
// service at sock.
func servicesFactory(t *testing.T, sock string) (*factory.Factory, *testenv.Env) {
	t.Helper()
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
	return f, env
}

// TestRedTeam_ServeTenantsShareNoBuildCache: two installations' serve
// steps, each with --domain-inline-repo, through the real wiring and the
// real Go service. Tenant A's generated test plants a file in its build
// cache; tenant B's test looks for it. Before requests carried the tenant,
// both inlined requests had the empty path and one cache layer, and B
// read A's file.
func TestRedTeam_ServeTenantsShareNoBuildCache(t *testing.T) {
	e2e.RequireToolchain(t)
	f, env := servicesFactory(t, goservicetest.Start(t, goservice.Options{CacheDir: t.TempDir()}))
	// Shaped like a build cache entry: the cache quota removes any other
	// file after each request, and a poisoned entry is the real threat.
	name := fmt.Sprintf("ff/%064x-a", time.Now().UnixNano())
	step := func(installation int64, repo github.Repo, test string) string {
		t.Helper()
		ws := t.TempDir()
		testkit.WriteTree(t, ws, map[string]string{
			"go.mod": "module example.com/w\n\ngo 1.22\n",
			"w/w.go": "package w\n",
			"w/x_test.go": "package w\n\nimport (\n\t\"os\"\n\t\"path/filepath\"\n\t\"testing\"\n)\n\nfunc TestX(t *testing.T) {\n\tp := filepath.Join(os.Getenv(\"GOCACHE\"), " +
				fmt.Sprintf("%q", name) + ")\n" + test + "\n}\n",
		})
		ctx := factory.WithDomainTenant(factory.WithDomainRepoInline(context.Background()), factory.InstallationTenant(installation, repo))
		d, _, err := f.StageDeps(ctx, env.Client, ws, config.Default(), nil)
		require.NoError(t, err)
		res, err := d.Domain.Simulate(ctx, domain.Request{Stage: string(pipeline.StageCodeGeneration), Repository: domain.Repository{Path: ws}},
			domain.SimulateParams{Packages: []string{"./w"}, Timeout: "30s"})
		require.NoError(t, err)
		require.Contains(t, res.Output, "ATTACK-RAN", res.Output)
		return res.Output
	}
	a, b := github.Repo{Owner: "acme", Name: "a"}, github.Repo{Owner: "evil", Name: "b"}
	out := step(1, a, "\t_ = os.MkdirAll(filepath.Dir(p), 0o755)\n\terr := os.WriteFile(p, []byte(\"from tenant A\"), 0o644)\n\tt.Logf(\"ATTACK-RAN plant err=%v\", err)")
	require.Contains(t, out, "plant err=<nil>")
	peek := "\tdata, err := os.ReadFile(p)\n\tt.Logf(\"ATTACK-RAN peek=%q err=%v\", data, err)"
	assert.NotContains(t, step(2, b, peek), "from tenant A", "another installation's step read what tenant A planted")
	assert.Contains(t, step(1, a, peek), "from tenant A", "a tenant keeps its own cache (the plant is real)")
}

// TestServeRunnerNamesEachInstallationsTenant: a serve step's domain
// requests are for its installation and repository, so two installations
// never share a tenant.
func TestServeRunnerNamesEachInstallationsTenant(t *testing.T) {
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, _, _ := cmdtest.TestFactory(t, env)
	var tenants []string
	inner := f.Executors
	f.Executors = func(ctx context.Context, gh factory.Client, repo github.Repo, ws string, cfg config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		tenants = append(tenants, factory.DomainTenant(ctx))
		return inner(ctx, gh, repo, ws, cfg)
	}
	dirs, err := installdir.New(t.TempDir(), nil)
	require.NoError(t, err)
	runner := &serve.ServeRunner{Factory: f, Clients: &serve.TokenSource{Client: env.Client}, Dirs: dirs, MaxSteps: 1}
	for _, inst := range []int64{11, 22} {
		_, err := runner.Run(context.Background(), server.Job{Installation: inst, Repo: testenv.Repo, Issue: n})
		require.NoError(t, err)
	}
	assert.Equal(t, []string{
		"installation/11/repo/" + testenv.Repo.String(),
		"installation/22/repo/" + testenv.Repo.String(),
	}, tenants)
}
