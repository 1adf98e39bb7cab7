package serve_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/cmd/serve"
	"github.com/cogworks/cogworks/internal/installdir"
	"github.com/cogworks/cogworks/internal/repotrust"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/server"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

// TestServeRunnerKeepsInstallationsApart: the same repository served for
// two installations is materialised in two private directories, and a
// directory tampered with between jobs is replaced before reuse.
func TestServeRunnerKeepsInstallationsApart(t *testing.T) {
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, _, _ := cmdtest.TestFactory(t, env)
	dirs, err := installdir.New(t.TempDir(), nil)
	require.NoError(t, err)
	runner := &serve.ServeRunner{Factory: f, Clients: &serve.TokenSource{Client: env.Client}, Dirs: dirs, MaxSteps: 1}
	for _, inst := range []int64{11, 22} {
		_, err := runner.Run(context.Background(), server.Job{Installation: inst, Repo: testenv.Repo, Issue: n})
		require.NoError(t, err)
	}
	one := filepath.Join(dirs.Root(), "installation-11")
	two := filepath.Join(dirs.Root(), "installation-22")
	for _, dir := range []string{one, two} {
		fi, err := os.Stat(dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
		trees, err := filepath.Glob(filepath.Join(dir, testenv.Repo.Owner, testenv.Repo.Name, "*"))
		require.NoError(t, err)
		assert.NotEmpty(t, trees, "%s holds its own tree of the repository", dir)
	}

	// Someone swaps installation 11's directory for their own.
	require.NoError(t, os.RemoveAll(one))
	require.NoError(t, os.MkdirAll(filepath.Join(one, testenv.Repo.Owner, testenv.Repo.Name), 0o700))
	planted := filepath.Join(one, testenv.Repo.Owner, testenv.Repo.Name, "planted")
	require.NoError(t, os.WriteFile(planted, []byte("x"), 0o600))
	_, err = runner.Run(context.Background(), server.Job{Installation: 11, Repo: testenv.Repo, Issue: n})
	require.NoError(t, err)
	assert.NoFileExists(t, planted, "the tampered directory was refused and rebuilt")
	assert.FileExists(t, filepath.Join(one, installdir.MarkerName))
}

func TestServeOptionsValidate(t *testing.T) {
	ok := serve.ServeOptions{Listen: ":8080", Workers: 1, QueueSize: 1, MaxSteps: 1, ReplayWindow: time.Hour}
	require.NoError(t, ok.Validate())
	tests := []struct {
		name string
		mod  func(*serve.ServeOptions)
		want string
	}{
		{"replay window", func(o *serve.ServeOptions) { o.ReplayWindow = 0 }, "--replay-window"},
		{"trust entry", func(o *serve.ServeOptions) { o.TrustRepoConfig = "acme" }, "--trust-repo-config"},
		{"redeliver interval", func(o *serve.ServeOptions) { o.RedeliverInterval = -time.Second }, "--redeliver-interval"},
		{"redeliver window beyond GitHub's 3 days", func(o *serve.ServeOptions) { o.RedeliverWindow = 73 * time.Hour }, "--redeliver-window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.mod(&o)
			assert.ErrorContains(t, o.Validate(), tt.want)
		})
	}
}

// TestServeReadsTrustAndInliningFromTheEnvironment: the flags' environment
// forms are read (and checked) when the flags are not given.
func TestServeReadsTrustAndInliningFromTheEnvironment(t *testing.T) {
	tests := []struct {
		env, value, want string
	}{
		{repotrust.EnvTrustRepoConfig, "acme", "--trust-repo-config"},
		{serve.EnvDomainInlineRepo, "maybe", serve.EnvDomainInlineRepo},
	}
	for _, tt := range tests {
		t.Run(tt.env, func(t *testing.T) {
			env := testenv.New(t)
			f, _, _ := cmdtest.TestFactory(t, env)
			f.Getenv = func(k string) string {
				switch k {
				case tt.env:
					return tt.value
				case secrets.EnvWebhookSecret:
					return "s3cret"
				}
				return ""
			}
			err := cmdtest.Execute(t, f, "serve", "--listen", "127.0.0.1:0")
			var usage *factory.UsageError
			require.ErrorAs(t, err, &usage)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestRunServeRefusesHostileDeliveries drives the real `cogworks serve`
// wiring on 127.0.0.1: the hardened server answers, and SIGTERM (here the
// context) stops it.
func TestRunServeRefusesHostileDeliveries(t *testing.T) {
	env := testenv.New(t)
	f, _, _ := cmdtest.TestFactory(t, env)
	f.Getenv = func(k string) string {
		if k == secrets.EnvWebhookSecret {
			return "s3cret"
		}
		return ""
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve.RunServe(ctx, f, &serve.ServeOptions{Listen: addr, Workers: 1, QueueSize: 1, MaxSteps: 1, Grace: time.Second, ReplayWindow: time.Hour})
	}()
	post := func(event, sig, ctype string) int {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/webhook", strings.NewReader("{}"))
		require.NoError(t, err)
		req.Header.Set("X-GitHub-Event", event)
		req.Header.Set("Content-Type", ctype)
		if sig != "" {
			req.Header.Set("X-Hub-Signature-256", sig)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Eventually(t, func() bool { return post("issues", "", "application/json") == http.StatusUnauthorized }, 5*time.Second, 10*time.Millisecond)
	assert.Equal(t, http.StatusBadRequest, post("zz-random", server.Sign([]byte("s3cret"), []byte("{}")), "application/json"))
	assert.Equal(t, http.StatusUnsupportedMediaType, post("issues", server.Sign([]byte("s3cret"), []byte("{}")), "text/plain"))
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}
