package factory_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/audit"
	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/secrets"
	"github.com/cogworks/cogworks/internal/statesig"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/pipeline"
)

func TestProcessWarnsOnASharedIdentity(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, _, errOut := cmdtest.TestFactory(t, env)
	f.BotLogin = statesig.SharedLogin
	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "1"))
	assert.Contains(t, errOut.String(), "a login every workflow of the repository shares")
	assert.Contains(t, errOut.String(), "no state key")

	g, _, quiet := cmdtest.TestFactory(t, env)
	g.Getenv = func(k string) string { return map[string]string{secrets.EnvStateKey: "k"}[k] }
	require.NoError(t, cmdtest.Execute(t, g, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "1"))
	assert.NotContains(t, quiet.String(), "shares", "an own login with a key is not warned about")
	assert.NotContains(t, quiet.String(), "no state key")
}

func TestStateKeySources(t *testing.T) {
	t.Parallel()
	pem := "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\n"
	pemFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(pemFile, []byte(pem), 0o600))
	derived := func(src statesig.Sources) statesig.Key {
		k, _, err := statesig.Derive(src)
		require.NoError(t, err)
		return k
	}
	tests := []struct {
		name string
		env  map[string]string
		want statesig.Key
		from string
	}{
		{"explicit key wins", map[string]string{secrets.EnvStateKey: "s3cret", "COGWORKS_LLM_API_KEY": "sk-x"}, statesig.Key("s3cret"), "COGWORKS_STATE_KEY"},
		{"derived from the LLM key", map[string]string{"COGWORKS_LLM_API_KEY": "sk-x", secrets.EnvWebhookSecret: "w"}, derived(statesig.Sources{LLMAPIKey: "sk-x"}), "derived from the LLM API key"},
		{"App key from its file", map[string]string{"COGWORKS_GITHUB_APP_PRIVATE_KEY": pemFile}, derived(statesig.Sources{AppPrivateKey: pem}), "derived from the GitHub App private key"},
		{"webhook secret last", map[string]string{secrets.EnvWebhookSecret: "w"}, derived(statesig.Sources{WebhookSecret: "w"}), "derived from the webhook secret"},
		{"none", map[string]string{}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &factory.Factory{Getenv: func(k string) string { return tt.env[k] }}
			key, from := f.SigningKey()
			assert.Equal(t, tt.want, key)
			assert.Equal(t, tt.from, from)
		})
	}
	assert.NotEqual(t, statesig.Key("sk-x"), derived(statesig.Sources{LLMAPIKey: "sk-x"}), "the LLM key itself is never the state key")
}

func TestRedTeamStatusIgnoresASharedLoginsForgery(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "t", "b")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	f, out, _ := cmdtest.TestFactory(t, env)
	shared := env.ClientAs(t, statesig.SharedLogin)
	f.GitHub = func(context.Context) (factory.Client, error) { return shared, nil }
	f.BotLogin = statesig.SharedLogin
	f.Getenv = func(k string) string { return map[string]string{secrets.EnvStateKey: "status-test-key"}[k] }

	require.NoError(t, cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", "1", "--workspace", t.TempDir(), "--max-steps", "3"))

	// Another workflow's GITHUB_TOKEN rewrites the status comment, which
	// its login can edit.
	forged := pipeline.NewSnapshot(testenv.Repo.String(), n)
	forged.Stage = pipeline.StageComplete
	block, err := pipeline.RenderSnapshot(forged)
	require.NoError(t, err)
	var status int64
	for _, c := range env.Sim.Comments(testenv.Repo.String(), n) {
		if _, ok := pipeline.SnapshotBlock(c.Body); ok {
			status = c.ID
		}
	}
	require.NotZero(t, status)
	_, err = shared.EditComment(t.Context(), testenv.Repo, status, audit.Format(audit.Comment{Key: audit.StatusKey(n), Title: "status", Hidden: block}))
	require.NoError(t, err)

	out.Reset()
	err = cmdtest.Execute(t, f, "status", "--repo", testenv.Repo.String(), "--issue", "1", "--output", "json")
	require.Error(t, err, "the forgery is not shown as the pipeline's state")
	assert.ErrorContains(t, err, "has no CogWorks status comment")
	assert.NotContains(t, out.String(), `"complete"`)
}
