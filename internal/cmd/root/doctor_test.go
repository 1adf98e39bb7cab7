package root_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/doctor"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/goservice"
	"github.com/cogworks/cogworks/internal/goservice/goservicetest"
	"github.com/cogworks/cogworks/internal/llm/providers"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/testenv"
)

// doctorEnv is a simulated repository plus a workspace for doctor.
type doctorEnv struct {
	env *testenv.Env
	ws  string
	llm *httptest.Server
	// llmStatus is what the fake OpenAI-compatible server answers.
	llmStatus int
	// model is the configured model (COGWORKS_LLM_MODEL).
	model string
}

func newDoctorEnv(t *testing.T) *doctorEnv {
	t.Helper()
	d := &doctorEnv{env: testenv.New(t), ws: t.TempDir(), llmStatus: http.StatusOK, model: "gpt-5.4"}
	d.llm = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(d.llmStatus)
		if d.llmStatus != http.StatusOK {
			fmt.Fprint(w, `{"error":{"type":"authentication_error","message":"invalid api key"}}`)
			return
		}
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","model":"local","choices":[{"index":0,"message":{"role":"assistant","content":"OK"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":1}}`)
	}))
	t.Cleanup(d.llm.Close)
	return d
}

// factory returns a Factory whose GitHub client uses token and whose LLM
// is the fake server (provider openai, so no key is needed).
func (d *doctorEnv) factory(t *testing.T, opts github.Options) (*factory.Factory, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	env := map[string]string{"COGWORKS_LLM_PROVIDER": "openai", "COGWORKS_LLM_BASE_URL": d.llm.URL + "/v1", "COGWORKS_LLM_MODEL": d.model,
		secrets.EnvStateKey: "doctor-test-state-key"}
	f := &factory.Factory{IO: factory.IOStreams{Out: &out, ErrOut: &out}, Getenv: func(k string) string { return env[k] },
		NewProvider: providers.FromConfig}
	opts.BaseURL = d.env.URL + "/api/v3/"
	opts.Retry = github.RetryPolicy{MaxRetries: -1}
	f.GitHub = func(ctx context.Context) (factory.Client, error) { return github.New(ctx, opts) }
	return f, &out
}

func (d *doctorEnv) writeGoodSetup(t *testing.T, f *factory.Factory) {
	t.Helper()
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--workspace", d.ws, "--no-labels"))
	sock := goservicetest.Start(t, goservice.Options{})
	require.NoError(t, os.WriteFile(filepath.Join(d.ws, ".cogworks", "services.toml"),
		[]byte(fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n", sock)), 0o644))
}

// lines maps each check name to its report line.
func doctorLines(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] != "fix:" && !strings.HasPrefix(strings.TrimSpace(line), "fix:") {
			name := fields[1]
			if name == "domain" {
				name = "domain services"
			}
			m[name] = line
		}
	}
	return m
}

func TestDoctorPassingSetUp(t *testing.T) {
	t.Parallel()
	d := newDoctorEnv(t)
	d.env.Sim.AddToken("ghp_octocat000000000000000000000000000", "octocat")
	d.env.Sim.AddTokenScopes("ghp_octocat000000000000000000000000000", "repo", "workflow")
	d.env.Sim.AddCollaborator(testenv.Repo.String(), "octocat", "write")
	d.env.Sim.SetActionsCanCreatePullRequests(testenv.Repo.String(), true)
	f, out := d.factory(t, github.Options{Token: "ghp_octocat000000000000000000000000000"})
	d.writeGoodSetup(t, f)
	require.NoError(t, cmdtest.Execute(t, f, "init", "--repo", testenv.Repo.String(), "--labels-only"))
	out.Reset()

	err := cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws)
	require.NoError(t, err, out.String())
	lines := doctorLines(out.String())
	for _, name := range []string{"permissions", "identity", "actions-prs", "labels", "config", "domain services", "sandbox", "llm"} {
		assert.True(t, strings.HasPrefix(lines[name], "ok"), "%s: %q\n%s", name, lines[name], out.String())
	}
	assert.True(t, strings.HasPrefix(lines["registry"], "skip"), lines["registry"])
	assert.Contains(t, lines["permissions"], "repo, workflow")
	assert.Contains(t, lines["llm"], "gpt-5.4 answered")
	assert.Contains(t, lines["identity"], "writes as octocat; state is signed with a key COGWORKS_STATE_KEY")
	assert.NotContains(t, out.String(), "fix:")
}

func TestDoctorFailingSetUps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, d *doctorEnv) github.Options
		failing map[string]string // check → text in its line
		fix     string
	}{
		{
			name: "classic token without repo scope on a private repository",
			setup: func(t *testing.T, d *doctorEnv) github.Options {
				d.env.Sim.SetPrivate(testenv.Repo.String(), true)
				d.env.Sim.AddToken("ghp_weak", "octocat")
				d.env.Sim.AddTokenScopes("ghp_weak", "public_repo")
				d.env.Sim.AddCollaborator(testenv.Repo.String(), "octocat", "write")
				return github.Options{Token: "ghp_weak"}
			},
			failing: map[string]string{"permissions": `lack "repo"`, "labels": "missing"},
			fix:     "repo scope",
		},
		{
			name: "read-only user, broken config, dead service, bad LLM key",
			setup: func(t *testing.T, d *doctorEnv) github.Options {
				d.env.Sim.AddToken("github_pat_ro", "mallory")
				require.NoError(t, os.WriteFile(filepath.Join(d.ws, ".cogworks", "config.toml"), []byte("[gates]\nplanning = \"sometimes\"\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(d.ws, ".cogworks", "services.toml"),
					[]byte(fmt.Sprintf("[[services]]\nname = \"go\"\ntransport = \"unix\"\nendpoint = %q\n", filepath.Join(d.ws, "dead.sock"))), 0o644))
				d.llmStatus = http.StatusUnauthorized
				return github.Options{Token: "github_pat_ro"}
			},
			failing: map[string]string{"permissions": "no write access", "config": "gates.planning",
				"domain services": "unavailable", "llm": "invalid api key"},
			fix: "write access",
		},
		{
			name: "the shared github-actions[bot] login (the Actions GITHUB_TOKEN)",
			setup: func(t *testing.T, d *doctorEnv) github.Options {
				d.env.Sim.AddToken("ghs_actions", "github-actions[bot]")
				d.env.Sim.AddCollaborator(testenv.Repo.String(), "github-actions[bot]", "write")
				return github.Options{Token: "ghs_actions"}
			},
			failing: map[string]string{"identity": "which every workflow of the repository shares"},
			fix:     "install the CogWorks GitHub App",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDoctorEnv(t)
			good, _ := d.factory(t, github.Options{Token: testenv.Token})
			d.writeGoodSetup(t, good)
			f, out := d.factory(t, tt.setup(t, d))
			err := cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws)
			require.Error(t, err, out.String())
			assert.Equal(t, 1, factory.ExitCode(err))
			t.Log(out.String())
			lines := doctorLines(out.String())
			for name, want := range tt.failing {
				assert.True(t, strings.HasPrefix(lines[name], "FAIL"), "%s: %q", name, lines[name])
				assert.Contains(t, lines[name], want)
			}
			assert.Contains(t, out.String(), tt.fix)
		})
	}
}

func TestDoctorGitHubApp(t *testing.T) {
	t.Parallel()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	tests := []struct {
		name  string
		perms map[string]string
		want  string
	}{
		{"all writable", map[string]string{"contents": "write", "issues": "write", "pull_requests": "write", "metadata": "read"}, "ok"},
		{"contents read-only", map[string]string{"contents": "read", "issues": "write", "pull_requests": "write"}, "FAIL"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDoctorEnv(t)
			inst := int64(100 + i)
			d.env.Sim.AddInstallationWithPermissions(42, inst, "cogworks-app[bot]", tt.perms)
			d.env.Sim.AddCollaborator(testenv.Repo.String(), "cogworks-app[bot]", "write")
			f, out := d.factory(t, github.Options{App: &github.AppAuth{AppID: 42, InstallationID: inst, PrivateKey: pemKey}})
			_ = cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws, "--offline")
			t.Log(out.String())
			line := doctorLines(out.String())["permissions"]
			assert.True(t, strings.HasPrefix(line, tt.want), line)
			assert.Contains(t, line, "GitHub App installation")
			assert.True(t, strings.HasPrefix(doctorLines(out.String())["llm"], "skip"), "--offline")
		})
	}
}

// The Action's GITHUB_TOKEN cannot open a PR until the repository allows
// it; doctor names the setting whether it can read it or not.
func TestDoctorActionsPullRequestSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		allowed bool
		actions bool
		want    string // status prefix
		detail  string
	}{
		{name: "admin token, setting off", want: "warn", detail: "may not create pull requests"},
		{name: "admin token, setting on", allowed: true, want: "ok", detail: "may create pull requests"},
		{name: "GITHUB_TOKEN cannot read it", actions: true, want: "warn", detail: "administration: read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorEnv(t)
			d.env.Sim.SetActionsCanCreatePullRequests(testenv.Repo.String(), tt.allowed)
			token := testenv.Token
			if tt.actions {
				token = "ghs_gha_doctor"
				d.env.Sim.AddActionsToken(token, testenv.Repo.String(), testenv.ActionsPermissions())
			}
			f, out := d.factory(t, github.Options{Token: token})
			_ = cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws, "--offline")
			line := doctorLines(out.String())["actions-prs"]
			assert.True(t, strings.HasPrefix(line, tt.want), "%q\n%s", line, out.String())
			assert.Contains(t, line, tt.detail)
			if tt.want != "ok" {
				assert.Contains(t, out.String(), "Allow GitHub Actions to create and approve pull requests")
			}
		})
	}
}

func TestDoctorSandboxCheck(t *testing.T) {
	t.Parallel()
	none := sandbox.Isolation{Mode: sandbox.None, Reason: "user namespaces are disabled"}
	tests := []struct {
		name   string
		iso    sandbox.Isolation
		env    map[string]string
		status string
		detail string
	}{
		{"namespaces", sandbox.Isolation{Mode: sandbox.Namespaces}, nil, factory.CheckOK, "namespaces (user, pid, mount, network, ipc, uts)"},
		{"namespaces, operator allows the network", sandbox.Isolation{Mode: sandbox.Namespaces}, map[string]string{sandbox.AllowNetworkEnv: "1"}, factory.CheckOK, "network = true get the network"},
		{"root in a container: cgroups and landlock", sandbox.Isolation{Mode: sandbox.Namespaces, LandlockABI: 7, PidsCgroup: true, MemoryCgroup: true}, nil, factory.CheckOK,
			"session: own (setsid), no terminal, TIOCSTI/TIOCLINUX denied; landlock ABI 7: signals, abstract unix sockets and ptrace scoped to the sandbox; memory: cgroup, 8 GiB for the whole sandbox; processes: pids cgroup, 4096; /tmp: tmpfs 2 GiB; disk quotas: workspace 1024 MiB, build cache layer 2048 MiB per repository"},
		{"unprivileged on an old kernel: rlimits only", sandbox.Isolation{Mode: sandbox.Namespaces}, nil, factory.CheckOK,
			"landlock: unavailable (ABI 0, scoping needs 6, Linux 6.12): signals kept in by setsid and the PID namespace; memory: no cgroup, RLIMIT_AS 8 GiB per process only; processes: RLIMIT_NPROC 4096 only (does not bind root)"},
		{"none: refuses", none, nil, factory.CheckFail, "none: user namespaces are disabled; the Go domain service refuses"},
		{"none with the unsafe opt-out", none, map[string]string{sandbox.UnsafeEnv: "1"}, factory.CheckWarn, "UNISOLATED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &factory.Factory{Getenv: func(k string) string { return tt.env[k] }, NewProvider: providers.FromConfig,
				ProbeSandbox: func(context.Context) sandbox.Isolation { return tt.iso }}
			c := doctor.CheckSandbox(context.Background(), f)
			assert.Equal(t, "sandbox", c.Name)
			assert.Equal(t, tt.status, c.Status)
			assert.Contains(t, c.Detail, tt.detail)
			assert.Contains(t, c.Fix, sandbox.UnsafeEnv, "the fix names the opt-out")
			assert.Contains(t, c.Fix, "apparmor_restrict_unprivileged_userns", "and the Ubuntu 24.04 sysctl")
		})
	}
}

// With nothing registered, doctor says what will serve the repository: in
// a Go module it starts and handshakes the built-in service as a step
// would; elsewhere it warns that the stages needing a service would halt.
func TestDoctorDomainServicesWithNothingRegistered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		goMod bool
		want  string
	}{
		{"a Go module: the built-in service", true, "ok    domain services  the built-in Go service (domain software"},
		{"no go.mod: nothing would serve", false, "warn  domain services  none registered in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDoctorEnv(t)
			f, out := d.factory(t, github.Options{Token: "ghp_octocat000000000000000000000000000"})
			f.Builtin = func(f *factory.Factory) *factory.BuiltinDomain {
				b := factory.NewBuiltinDomain(f)
				b.Env = append(os.Environ(), cmdtest.ReexecEnv+"=1")
				b.PassEnv = []string{cmdtest.ReexecEnv}
				return b
			}
			if tt.goMod {
				require.NoError(t, os.WriteFile(filepath.Join(d.ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644))
			}
			_ = cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws, "--offline")
			line := doctorLines(out.String())["domain services"]
			assert.Contains(t, line, tt.want, out.String())
		})
	}
}

// TestDoctorModelRetirement: a model past its provider's shutdown date
// fails the llm check with the replacement named, without a request; one
// with a date ahead answers and warns. Before the table carried those
// dates both passed (deprecation_date was parsed and never read).
func TestDoctorModelRetirement(t *testing.T) {
	t.Parallel()
	tests := []struct {
		model, status, detail string
	}{
		{"o4-mini", "FAIL", "switch to gpt-5.6-luna"},
		{"gpt-4.1", "warn", "retired by its provider on 2027-01-14"},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			d := newDoctorEnv(t)
			d.model = tt.model
			d.env.Sim.AddToken("ghp_octocat000000000000000000000000000", "octocat")
			d.env.Sim.AddCollaborator(testenv.Repo.String(), "octocat", "write")
			f, out := d.factory(t, github.Options{Token: "ghp_octocat000000000000000000000000000"})
			f.Clock = func() time.Time { return time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC) }
			d.writeGoodSetup(t, f)
			out.Reset()
			_ = cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", d.ws)
			line := doctorLines(out.String())["llm"]
			assert.True(t, strings.HasPrefix(strings.ToLower(line), strings.ToLower(tt.status)), "%q\n%s", line, out.String())
			assert.Contains(t, line, tt.detail)
		})
	}
}
