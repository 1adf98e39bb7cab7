//go:build e2e

package stages_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmdservice/cmdservicetest"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/prompts"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
	"github.com/cogworks/cogworks/xval"

	"github.com/cogworks/cogworks/stages"
	"github.com/cogworks/cogworks/stages/stagekit"
)

// requireLangToolchain skips t when err says a sample's toolchain is
// missing on this host, except under CI=true, where .ci/run installs
// every one of them and a missing toolchain is a failure: CI proves the
// samples, a developer's machine may lack cargo or npm.
func requireLangToolchain(t *testing.T, err error) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs real toolchains (skipped under -short)")
	}
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and the toolchain is missing: %v", err)
	}
	t.Skipf("toolchain missing: %v", err)
}

// recordingProvider keeps every request and sums the tokens answered.
type recordingProvider struct {
	inner llm.Provider

	mu       sync.Mutex
	requests []llm.Request
	in, out  int
}

func (p *recordingProvider) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	resp, err := p.inner.Complete(ctx, req)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, req)
	p.in += resp.InputTokens
	p.out += resp.OutputTokens
	return resp, err
}

// templates returns the prompts sent for template.
func (p *recordingProvider) templates(template string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		if r.Template != template {
			continue
		}
		var b strings.Builder
		b.WriteString(r.System)
		for _, m := range r.Messages {
			b.WriteString("\n" + m.Content)
		}
		out = append(out, b.String())
	}
	return out
}

// langRun is one sample's pipeline on the simulator.
type langRun struct {
	env      *testenv.Env
	provider *recordingProvider
	results  []engine.Result
	issue    int
	ws       string
	wall     time.Duration
}

// langServices connects to services and routes over them by artifact
// type, as cogworks process does.
func langServices(t *testing.T, services ...domain.ServiceConfig) (*domain.Router, []xval.ServiceInfo) {
	t.Helper()
	set := domain.Connect(context.Background(), services)
	var infos []xval.ServiceInfo
	for _, st := range set.Services() {
		require.True(t, st.Available(), "service %s: %v", st.Config.Name, st.Err)
		infos = append(infos, xval.ServiceInfo{Name: st.Config.Name, Domain: st.Domain()})
	}
	return domain.NewRouter(set), infos
}

// runLangPipeline carries the issue through the whole pipeline on the
// simulator with a scripted LLM and the real toolchains behind dom.
func runLangPipeline(t *testing.T, files map[string]string, title, body string, provider llm.Provider, dom stagekit.Domain, infos []xval.ServiceInfo) *langRun {
	t.Helper()
	ctx := context.Background()
	env := testenv.New(t)
	env.Sim.Relax(githubsim.RuleSecondaryRateLimit)
	repo := testenv.Repo.String()
	env.Sim.SeedFiles(repo, "main", files)
	ws := t.TempDir()
	testkit.WriteTree(t, ws, files)

	// As cogworks process does: the registry of the checkout, empty here.
	reg, err := xval.LoadRegistry(filepath.Join(ws, ".cogworks", "interfaces"))
	require.NoError(t, err)
	rec := &recordingProvider{inner: provider}
	deps := stages.Deps{GitHub: env.Client, Deps: stagekit.Deps{
		LLM: llm.NewGateway(rec, prompts.Set{}), Domain: dom, Workspace: ws,
		Registry: reg, Services: infos, Clock: env.Clock.Now,
	}}
	cfg := config.Default()
	cfg.Scenarios.Trajectories = 1
	ed := engine.Deps{GitHub: env.Client, Executors: stages.Executors(deps), Config: cfg, RunID: "e2e-langs",
		BotLogin: testenv.Bot, Clock: env.Clock.Now}
	n := env.Sim.SeedIssue(repo, "alice", title, body, pipeline.LabelRun)
	start := time.Now()
	results, err := engine.Run(ctx, ed, engine.Ref{Repo: testenv.Repo, Issue: n}, 20)
	run := &langRun{env: env, provider: rec, results: results, issue: n, ws: ws, wall: time.Since(start)}
	require.NoError(t, err, "results: %+v", results)
	require.Equal(t, engine.OutcomeComplete, results[len(results)-1].Outcome, "results: %+v", results)
	var ran []string
	for _, r := range results {
		ran = append(ran, r.Stage)
	}
	assert.Equal(t, []string{"intake", "planning", "code-generation", "scenario-validation", "review", "integration"}, ran)
	return run
}

// requests sums the GitHub requests of every step.
func (r *langRun) requests() int64 {
	var n int64
	for _, res := range r.results {
		n += res.GitHubRequests
	}
	return n
}

// branchArtifacts returns the files of the sub-work-item's branch that
// differ from main, as artifacts over the workspace.
func (r *langRun) branchArtifacts(t *testing.T, base map[string]string) []domain.Artifact {
	t.Helper()
	var out []domain.Artifact
	for p, c := range r.env.Sim.BranchFiles(testenv.Repo.String(), fmt.Sprintf("cogworks/%d/swi-1", r.issue)) {
		if base[p] != c && !strings.HasPrefix(p, ".cogworks/") {
			out = append(out, domain.Artifact{Path: p, Content: c})
		}
	}
	return out
}

// TestLanguageSamplesEndToEnd carries each non-Go sample (internal/demo)
// through the whole pipeline to a PR: the first code attempt fails the
// real toolchain (pytest's JUnit report, tsc's TS2322, cargo test's
// failure), that feedback reaches the second attempt, which is committed;
// the PR branch's tests really pass.
func TestLanguageSamplesEndToEnd(t *testing.T) {
	for _, name := range demo.SampleNames() {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s, err := demo.LoadSample(name)
			require.NoError(t, err)
			d, opts, err := s.Service(ctx, os.Getenv)
			requireLangToolchain(t, err)
			opts.TestTimeout = 5 * time.Minute
			sock := cmdservicetest.Start(t, d, opts)
			router, infos := langServices(t, domain.ServiceConfig{Name: name, Transport: domain.TransportUnix, Endpoint: sock})
			run := runLangPipeline(t, s.Files, s.IssueTitle, s.IssueBody, s.Provider(), router, infos)

			codegen := run.provider.templates("code_generation")
			require.Len(t, codegen, 2, "one failing attempt, one fix")
			assert.NotContains(t, codegen[0], s.Feedback)
			assert.Contains(t, codegen[1], s.Feedback, "the toolchain's report reached the second attempt")

			arts := run.branchArtifacts(t, s.Files)
			var fixed string
			for _, a := range arts {
				if a.Path == s.FixedPath {
					fixed = a.Content
				}
			}
			assert.Contains(t, fixed, s.Fixed, "the PR holds the second attempt")
			res, err := router.Simulate(ctx, domain.Request{WorkItem: "final", Repository: domain.Repository{Path: run.ws}, Artifacts: arts},
				domain.SimulateParams{Timeout: "4m"})
			require.NoError(t, err)
			assert.True(t, res.Passed, "the PR branch's tests: %s", res.Output)
			assert.GreaterOrEqual(t, len(res.Tests), 2, "%+v", res.Tests)
			t.Logf("BENCH sample=%s github_requests=%d llm_calls=%d tokens_in=%d tokens_out=%d wall=%s",
				name, run.requests(), len(run.provider.requests), run.provider.in, run.provider.out, run.wall.Round(100*time.Millisecond))
		})
	}
}
