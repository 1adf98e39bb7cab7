package serve_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/democmd"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/demo"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/githubsim"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/metrics"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/server"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

const (
	testAppID        = 4242
	testInstallation = 77
	testWebhookKey   = "webhook-secret-for-tests"
)

// appFixture is a simulator with the demo repository, a registered App
// and its installation.
type appFixture struct {
	sim  *githubsim.Server
	url  string
	key  []byte
	repo github.Repo
	// rateReserve is the replicas' --rate-reserve (0: none).
	rateReserve int
}

// fixtureKey is the App key every appFixture registers with its own
// simulator: a 2048-bit RSA key costs 0.1-1 s to generate, and no test
// depends on two fixtures' keys differing.
var fixtureKey = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

func newAppFixture(t *testing.T) *appFixture {
	t.Helper()
	rsaKey, err := fixtureKey()
	require.NoError(t, err)
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})
	sim := githubsim.New()
	url, err := sim.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(sim.Close)
	sim.AddApp(testAppID, "cogworks", "cogworks[bot]", &rsaKey.PublicKey)
	sim.AddInstallation(testAppID, testInstallation)
	repo := github.Repo{Owner: demo.Owner, Name: demo.Name}
	sim.CreateRepo(repo.Owner, repo.Name, "main")
	files, err := demo.Files()
	require.NoError(t, err)
	sim.SeedFiles(repo.String(), "main", files)
	sim.AddCollaborator(repo.String(), democmd.DemoHuman, "maintain")
	return &appFixture{sim: sim, url: url, key: keyPEM, repo: repo}
}

// replica builds one `cogworks serve` process: its own factory, App
// clients, workspace cache and metrics, sharing only the simulator.
func (a *appFixture) replica(t *testing.T, provider *demo.RuleProvider) (*server.Server, *metrics.Metrics) {
	t.Helper()
	m := metrics.New(metrics.Options{})
	services := filepath.Join(t.TempDir(), "services.toml")
	sock := goservicetest.Start(t, goservice.Options{})
	require.NoError(t, os.WriteFile(services, []byte(fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n", sock)), 0o600))
	getenv := func(k string) string {
		if k == "COGWORKS_DOMAIN_SERVICES_CONFIG" {
			return services
		}
		return ""
	}
	f := &factory.Factory{IO: factory.IOStreams{Out: io.Discard, ErrOut: io.Discard}, Getenv: getenv,
		Clock: time.Now, LLMProvider: provider, Metrics: m}
	factory.Wire(f)
	src, err := serve.NewAppSource(github.Options{
		BaseURL: a.url + "/api/v3/", App: &github.AppAuth{AppID: testAppID, PrivateKey: a.key},
		Transport: m.Transport(nil), Retry: github.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond},
	}, "")
	require.NoError(t, err)
	runner := &serve.ServeRunner{Factory: f, Clients: src, Dirs: cmdtest.TestDirs(t), MaxSteps: 10, RateReserve: a.rateReserve}
	srv, err := server.New(server.Options{Secret: []byte(testWebhookKey), Runner: runner, Ready: src.Ready,
		Installations: src, QueueSize: 200, Workers: 3, Metrics: m})
	require.NoError(t, err)
	return srv, m
}

type delivery struct {
	id, event string
	body      []byte
}

// issueEvent is an issues payload for #n. As on GitHub, it carries the
// issue's labels after the event: an opened issue has none yet, the later
// events find cogworks:run.
func issueEvent(repo github.Repo, n int, action string) []byte {
	labels := `[{"name":"cogworks:run"}]`
	if action == "opened" {
		labels = `[]`
	}
	return []byte(fmt.Sprintf(`{"action":%q,"issue":{"number":%d,"labels":%s},"label":{"name":"cogworks:run"},"repository":{"full_name":%q},"installation":{"id":%d},"sender":{"login":%q,"type":"User"}}`,
		action, n, labels, repo, testInstallation, democmd.DemoHuman))
}

// updatedAt sets the issue's updated_at in an event payload: GitHub's
// payloads of two events on one issue differ at least there, and serve
// drops a body it has accepted before as a replay.
func updatedAt(body []byte, second int) []byte {
	return bytes.Replace(body, []byte(`"issue":{`), fmt.Appendf(nil, `"issue":{"updated_at":"2026-01-01T00:00:%02dZ",`, second), 1)
}

// commentEvent is a person's comment on #n, which carries cogworks:run.
func commentEvent(repo github.Repo, n int, id int64) []byte {
	return []byte(fmt.Sprintf(`{"action":"created","issue":{"number":%d,"labels":[{"name":"cogworks:run"}]},"comment":{"id":%d,"body":"Thanks, looking forward to it.","user":{"login":%q,"type":"User"}},"repository":{"full_name":%q},"installation":{"id":%d},"sender":{"login":%q,"type":"User"}}`,
		n, id, democmd.DemoHuman, repo, testInstallation, democmd.DemoHuman))
}

func post(t *testing.T, url string, d delivery) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/webhook", bytes.NewReader(d.body))
	require.NoError(t, err)
	req.Header.Set("X-GitHub-Event", d.event)
	req.Header.Set("X-GitHub-Delivery", d.id)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", server.Sign([]byte(testWebhookKey), d.body))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// botKeys returns the hidden keys of the bot's comments on issue n, with
// the issue number replaced so different issues compare.
func botKeys(sim *githubsim.Server, repo github.Repo, n int) []string {
	var keys []string
	for _, c := range sim.Comments(repo.String(), n) {
		if c.Author != "cogworks[bot]" {
			continue
		}
		k, ok := audit.FindKey(c.Body)
		if !ok {
			k = "<no key>"
		}
		if rest, ok := strings.CutPrefix(k, fmt.Sprintf("%d/", n)); ok {
			k = "N/" + rest
		}
		if strings.HasPrefix(k, "N/step/") {
			k = "N/step/<run>" // one record per step, named by the run that made it
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func TestThreeReplicasAgreeWithOneProcess(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("multi-replica test")
	}
	fx := newAppFixture(t)
	// 21 pipelines' writes land within one simulated minute: under GitHub's
	// secondary limit (80 a minute) every replica would wait out a real
	// Retry-After. What this test compares is the replicas' agreement.
	fx.sim.Relax(githubsim.RuleSecondaryRateLimit)
	provider, err := demo.Script()
	require.NoError(t, err)

	// Reference: one process steps one issue the way a single CLI run would.
	ref := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
	fx.sim.LabelIssue(fx.repo.String(), ref, democmd.DemoHuman, pipeline.LabelRun)
	single, _ := fx.replica(t, provider)
	refSrv := httptest.NewServer(single.Handler())
	require.Equal(t, http.StatusAccepted, post(t, refSrv.URL, delivery{"ref-1", "issues", issueEvent(fx.repo, ref, "labeled")}))
	require.Eventually(t, single.Idle, 60*time.Second, 10*time.Millisecond)
	refSrv.Close()
	require.NoError(t, single.Shutdown(context.Background()))
	refKeys := botKeys(fx.sim, fx.repo, ref)
	refLabels := fx.sim.Labels(fx.repo.String(), ref)
	require.Contains(t, refLabels, "cogworks:stage:architecture", "the reference reached the architecture gate")

	var issues []int
	for range 20 {
		n := fx.sim.SeedIssue(fx.repo.String(), democmd.DemoHuman, demo.IssueTitle, demo.IssueBody)
		fx.sim.LabelIssue(fx.repo.String(), n, democmd.DemoHuman, pipeline.LabelRun)
		issues = append(issues, n)
	}
	var (
		urls    []string
		servers []*server.Server
		mets    []*metrics.Metrics
	)
	for range 3 {
		srv, m := fx.replica(t, provider)
		hs := httptest.NewServer(srv.Handler())
		t.Cleanup(hs.Close)
		servers, mets, urls = append(servers, srv), append(mets, m), append(urls, hs.URL)
	}

	// 200 deliveries: per issue opened, labeled, edited and comments, then
	// redeliveries of earlier ids, all shuffled (out of order) and spread
	// over the replicas at random, 8 at a time.
	rng := mrand.New(mrand.NewPCG(1, 2))
	var ds []delivery
	for i, n := range issues {
		ds = append(ds,
			delivery{fmt.Sprintf("open-%d", n), "issues", issueEvent(fx.repo, n, "opened")},
			delivery{fmt.Sprintf("label-%d", n), "issues", issueEvent(fx.repo, n, "labeled")},
			delivery{fmt.Sprintf("edit-%d", n), "issues", issueEvent(fx.repo, n, "edited")},
		)
		for c := range 4 {
			ds = append(ds, delivery{fmt.Sprintf("comment-%d-%d", n, c), "issue_comment", commentEvent(fx.repo, n, int64(9000+i*10+c))})
		}
	}
	for len(ds) < 200 {
		ds = append(ds, ds[rng.IntN(len(ds))]) // redelivery: same id and body
	}
	rng.Shuffle(len(ds), func(i, j int) { ds[i], ds[j] = ds[j], ds[i] })
	var wg sync.WaitGroup
	work := make(chan delivery)
	statuses := make(chan int, len(ds))
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				statuses <- post(t, urls[mrand.IntN(len(urls))], d)
			}
		}()
	}
	for _, d := range ds {
		work <- d
	}
	close(work)
	wg.Wait()
	close(statuses)
	for st := range statuses {
		assert.Contains(t, []int{http.StatusAccepted, http.StatusOK}, st)
	}
	require.Eventually(t, func() bool {
		for _, s := range servers {
			if !s.Idle() {
				return false
			}
		}
		return true
	}, 3*time.Minute, 20*time.Millisecond)
	for _, s := range servers {
		require.NoError(t, s.Shutdown(context.Background()))
	}

	for _, n := range issues {
		labels := fx.sim.Labels(fx.repo.String(), n)
		assert.ElementsMatch(t, refLabels, labels, "#%d ends with the reference's labels (no lock left)", n)
		assert.NotContains(t, labels, pipeline.LabelProcessing)
		keys := botKeys(fx.sim, fx.repo, n)
		assert.Equal(t, refKeys, keys, "#%d has exactly the reference's bot comments: none duplicated, no lock claim left", n)
	}
	// The architecture stage opens one spec PR per work item on its own
	// branch: exactly one each, as for the reference.
	heads := map[string]int{}
	for _, pr := range fx.sim.Pulls(fx.repo.String()) {
		heads[pr.Head]++
	}
	for _, n := range append([]int{ref}, issues...) {
		assert.Equal(t, 1, heads[fmt.Sprintf("cogworks/%d/spec", n)], "#%d has exactly one spec PR", n)
		_, ok := fx.sim.BranchSHA(fx.repo.String(), fmt.Sprintf("cogworks/%d/spec", n))
		assert.True(t, ok, "#%d spec branch", n)
	}
	assert.Len(t, heads, len(issues)+1, "no other PR or branch")
	var backoffs, steps float64
	for _, m := range mets {
		for _, mf := range mustGather(t, m) {
			switch mf.GetName() {
			case "cogworks_lock_contention_total":
				backoffs += mf.GetMetric()[0].GetCounter().GetValue()
			case "cogworks_steps_total":
				for _, mm := range mf.GetMetric() {
					steps += mm.GetCounter().GetValue()
				}
			}
		}
	}
	t.Logf("replicas stepped %v times, %v backed off on the GitHub lock", steps, backoffs)
	assert.Positive(t, steps)
}

func mustGather(t *testing.T, m *metrics.Metrics) []*dto.MetricFamily {
	t.Helper()
	mfs, err := m.Registry.Gather()
	require.NoError(t, err)
	return mfs
}

// TestServeWithATokenAsksGitHubWhoItIs: in token mode (no App) serve knows
// no bot login up front; the step must ask GitHub rather than run without
// one (which the engine refuses: it could not tell its own comments).
func TestServeWithATokenAsksGitHubWhoItIs(t *testing.T) {
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, _, _ := cmdtest.TestFactory(t, env)
	f.BotLogin = "" // as NewFactory leaves it
	runner := &serve.ServeRunner{Factory: f, Clients: &serve.TokenSource{Client: env.Client}, Dirs: cmdtest.TestDirs(t), MaxSteps: 1}
	results, err := runner.Run(context.Background(), server.Job{Repo: testenv.Repo, Issue: n})
	require.NoError(t, err)
	require.Len(t, results, 1)
	assert.Equal(t, engine.OutcomeAdvanced, results[0].Outcome)
	for _, c := range env.Sim.Comments(testenv.Repo.String(), n) {
		assert.Equal(t, testenv.Bot, c.Author, "the bot's comments, found as its own")
	}
}

// TestBotLoginOfAnInstallationTokenIsItsApp: an App installation token
// passed as COGWORKS_GITHUB_TOKEN (actions/create-github-app-token) may not
// read /user; the bot is who GraphQL says it is, not github-actions[bot].
func TestBotLoginOfAnInstallationTokenIsItsApp(t *testing.T) {
	env := testenv.New(t) // testenv.Token is a ghs_ installation token
	f := &factory.Factory{Getenv: func(k string) string {
		if k == "GITHUB_ACTIONS" {
			return "true"
		}
		return ""
	}}
	login, err := f.OwnLogin(context.Background(), env.Client)
	require.NoError(t, err)
	assert.Equal(t, testenv.Bot, login)
}

// counterValue sums the counter name's series whose labels include want.
func counterValue(t *testing.T, m *metrics.Metrics, name string, want map[string]string) float64 {
	t.Helper()
	var sum float64
	for _, mf := range mustGather(t, m) {
		if mf.GetName() != name {
			continue
		}
	series:
		for _, mm := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range mm.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue series
				}
			}
			sum += mm.GetCounter().GetValue()
		}
	}
	return sum
}

// TestServeWithoutCredentialsAsksForTheApp: serve's credentials are an App
// (id and key; each delivery names its installation) or a token, so its
// error must not send the operator after an installation id as the CLI's
// does.
func TestServeWithoutCredentialsAsksForTheApp(t *testing.T) {
	t.Parallel()
	f := factory.NewFactory(factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}})
	env := map[string]string{secrets.EnvWebhookSecret: "a webhook secret"}
	f.Getenv = func(k string) string { return env[k] }
	f.Environ = func() []string { return nil }
	err := cmdtest.Execute(t, f, "serve", "--listen", "127.0.0.1:0")
	require.Error(t, err)
	assert.Equal(t, 2, factory.ExitCode(err))
	assert.Contains(t, err.Error(), "set COGWORKS_GITHUB_APP_ID and COGWORKS_GITHUB_APP_PRIVATE_KEY")
	assert.Contains(t, err.Error(), "COGWORKS_GITHUB_TOKEN")
	assert.NotContains(t, err.Error(), "COGWORKS_GITHUB_INSTALLATION_ID")
}
