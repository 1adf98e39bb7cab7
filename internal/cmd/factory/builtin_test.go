package factory_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/domain"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/sandbox"
	"github.com/cogworks/cogworks/internal/testkit"
)

func TestMain(m *testing.M) {
	cmdtest.Main(m)
}

func testBuiltin(t *testing.T, stderr io.Writer) *factory.BuiltinDomain {
	t.Helper()
	f := &factory.Factory{IO: factory.IOStreams{ErrOut: stderr}, Getenv: func(string) string { return "" }}
	b := factory.NewBuiltinDomain(f)
	b.Env = append(os.Environ(), cmdtest.ReexecEnv+"=1")
	b.PassEnv = []string{cmdtest.ReexecEnv}
	t.Cleanup(b.Stop)
	return b
}

func TestBuiltinDomainStartsHandshakesAndStops(t *testing.T) {
	t.Parallel()
	logs := &testkit.SyncBuffer{}
	b := testBuiltin(t, logs)
	ctx := context.Background()
	cfg, err := b.Start(ctx)
	require.NoError(t, err)
	assert.Equal(t, factory.BuiltinServiceName, cfg.Name)
	assert.Equal(t, domain.TransportUnix, cfg.Transport)

	again, err := b.Start(ctx)
	require.NoError(t, err)
	assert.Equal(t, cfg, again, "started once per invocation")

	c, err := domain.NewClient(cfg)
	require.NoError(t, err)
	defer c.Close()
	hs, err := c.Handshake(ctx)
	require.NoError(t, err)
	assert.NotEmpty(t, hs.APIVersion)
	assert.Contains(t, logs.String(), "using the built-in Go domain service")

	proc := b.Cmd.Process
	dir := filepath.Dir(cfg.Endpoint)
	b.Stop()
	_, err = os.Stat(dir)
	assert.True(t, errors.Is(err, os.ErrNotExist), "socket directory removed")
	assert.ErrorIs(t, proc.Signal(syscall.Signal(0)), os.ErrProcessDone, "child process has exited")
	_, err = c.Handshake(ctx)
	assert.Error(t, err, "service no longer answers")
	b.Stop() // idempotent
}

func TestBuiltinDomainChildFailureIsReported(t *testing.T) {
	t.Parallel()
	b := testBuiltin(t, io.Discard)
	b.Args = []string{"domain-go", "serve", "--http", "127.0.0.1:0"} // with --socket too: a usage error
	_, err := b.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before answering its handshake")
	assert.Nil(t, b.Cmd, "nothing left running")
}

func TestDomainServicesChoice(t *testing.T) {
	t.Parallel()
	const registered = "[[services]]\nname = \"py\"\ntransport = \"http\"\nendpoint = \"127.0.0.1:1\"\n"
	tests := []struct {
		name     string
		files    map[string]string
		override string
		want     []string
		usage    bool
	}{
		{name: "registered services win", files: map[string]string{"go.mod": "module x\n", ".cogworks/services.toml": registered}, want: []string{"py"}},
		{name: "Go module without registration: built-in", files: map[string]string{"go.mod": "module x\n"}, want: []string{factory.BuiltinServiceName}},
		{name: "no go.mod, no registration: none", files: map[string]string{"README.md": "x"}, want: nil},
		{name: "explicit services file missing", files: map[string]string{"go.mod": "module x\n"}, override: "/nonexistent/services.toml", usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			for p, c := range tt.files {
				full := filepath.Join(ws, p)
				require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
				require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
			}
			b := testBuiltin(t, io.Discard)
			f := &factory.Factory{IO: factory.IOStreams{ErrOut: io.Discard}, Getenv: func(k string) string {
				if k == "COGWORKS_DOMAIN_SERVICES_CONFIG" {
					return tt.override
				}
				return ""
			}}
			cfgs, err := f.DomainServices(context.Background(), ws, config.Default(), b)
			if tt.usage {
				require.Error(t, err)
				assert.Equal(t, 2, factory.ExitCode(err))
				return
			}
			require.NoError(t, err)
			var names []string
			for _, c := range cfgs {
				names = append(names, c.Name)
			}
			assert.Equal(t, tt.want, names)
			assert.Equal(t, tt.want != nil && tt.want[0] == factory.BuiltinServiceName, b.Cmd != nil, "child runs only when built in")
		})
	}
}

func TestBuiltinDomainChildEnvironmentIsAllowListed(t *testing.T) {
	t.Parallel()
	const token = "ghs_plantedBUILTINtoken42"
	logs := &testkit.SyncBuffer{}
	b := testBuiltin(t, logs)
	b.Env = append(b.Env, "COGWORKS_GITHUB_TOKEN="+token, "COGWORKS_LLM_API_KEY="+token, "GITHUB_TOKEN="+token,
		"ACTIONS_RUNTIME_TOKEN="+token, "GOOGLE_APPLICATION_CREDENTIALS="+token, "GOPRIVATE=example.com/private")
	_, err := b.Start(context.Background())
	require.NoError(t, err)
	environ, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(b.Cmd.Process.Pid), "environ"))
	require.NoError(t, err)
	assert.NotContains(t, string(environ), token, "the built-in service starts without the process's secrets")
	assert.Contains(t, string(environ), "GOPRIVATE=example.com/private", "module settings pass")
	// The child wrote the line before it answered the handshake; the
	// parent's copy of its standard error may still be on its way.
	assert.Eventually(t, func() bool { return strings.Contains(logs.String(), "isolation") }, 10*time.Second, 10*time.Millisecond,
		"the service logs which isolation is in force: %s", logs.String())
}

func TestServiceEnvKeepsOnlyAllowedNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    []string
		extra []string
		want  []string
	}{
		{"secrets dropped", []string{"COGWORKS_GITHUB_TOKEN=t", "GITHUB_TOKEN=t", "MY_KEY=k", "PATH=/bin"}, nil, []string{"PATH=/bin"}},
		{"Go settings kept, GOOGLE_ is not GO", []string{"GOPROXY=https://p", "GOOGLE_APPLICATION_CREDENTIALS=/k.json"}, nil, []string{"GOPROXY=https://p"}},
		{"sandbox switches kept", []string{sandbox.UnsafeEnv + "=1", sandbox.AllowNetworkEnv + "=1"}, nil, []string{sandbox.UnsafeEnv + "=1", sandbox.AllowNetworkEnv + "=1"}},
		{"extra names", []string{"X=1", "Y=2"}, []string{"X"}, []string{"X=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, factory.ServiceEnv(tt.in, tt.extra...))
		})
	}
}

// TestBuiltinCommandServicesServeTheConfiguredDomains: a [[domains]] entry
// of the configuration starts the built-in command service for it as a
// child beside the Go service (after it, so the Go service keeps .go), and
// the pipeline's router reaches it for the domain's files; Stop ends both.
// Before, a Python repository had no service unless it wrote one.
func TestBuiltinCommandServicesServeTheConfiguredDomains(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"a Python repository", map[string]string{"pyproject.toml": "[project]\nname = \"calc\"\n"}, []string{"python (built-in command)"}},
		{"a Go and Python monorepo", map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n"}, []string{factory.BuiltinServiceName, "python (built-in command)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			for p, c := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644))
			}
			b := testBuiltin(t, io.Discard)
			f := &factory.Factory{IO: factory.IOStreams{ErrOut: io.Discard}, Getenv: func(string) string { return "" }}
			cfg := config.Default()
			cfg.Domains = []config.Domain{{Name: "python", Preset: "python"}}
			ctx := context.Background()
			cfgs, err := f.DomainServices(ctx, ws, cfg, b)
			require.NoError(t, err)
			var names []string
			for _, c := range cfgs {
				names = append(names, c.Name)
			}
			require.Equal(t, tt.want, names)

			set := domain.Connect(ctx, cfgs)
			py := set.Services()[len(cfgs)-1]
			require.True(t, py.Available(), "%v", py.Err)
			assert.Equal(t, "python", py.Handshake.Domain)
			assert.Contains(t, py.Handshake.ArtifactTypes, ".py")
			assert.Contains(t, py.Handshake.Capabilities, domain.MethodSimulate)
			router := domain.NewRouter(set)
			assert.Equal(t, len(cfgs)-1, router.Covering("src/calc/ops.py"), "a .py file goes to the command service")

			again, err := b.Command(ctx, cfg.Domains[0])
			require.NoError(t, err)
			assert.Equal(t, cfgs[len(cfgs)-1], again, "started once per invocation")
			child := b.Commands["python"].Cmd.Process
			b.Stop()
			assert.ErrorIs(t, child.Signal(syscall.Signal(0)), os.ErrProcessDone, "the command service stopped with the Go service")
		})
	}
}
