package factory_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/engine"
	"github.com/cogworks/cogworks/internal/escalation"
	"github.com/cogworks/cogworks/internal/github"
	"github.com/cogworks/cogworks/internal/llm/providers"
	"github.com/cogworks/cogworks/internal/testenv"
	"github.com/cogworks/cogworks/internal/testkit"
	"github.com/cogworks/cogworks/pipeline"
)

// leakForms are the ways a secret leaks through output and error text.
func leakForms(secret string) map[string]string {
	return map[string]string{
		"plain":  secret,
		"base64": base64.StdEncoding.EncodeToString([]byte(secret)),
		"hex":    hex.EncodeToString([]byte(secret)),
		"url":    url.QueryEscape(secret),
	}
}

// assertNoLeak fails when text holds secret in any of leakForms.
func assertNoLeak(t *testing.T, text, secret, where string) {
	t.Helper()
	for form, leak := range leakForms(secret) {
		assert.NotContains(t, text, leak, "%s carries the secret (%s)", where, form)
	}
}

// secretEnvFactory is a production factory (the GitHub client built from
// the environment, the production stage executors) against the
// simulator, with the given extra environment.
func secretEnvFactory(t *testing.T, env *testenv.Env, extra map[string]string) (*factory.Factory, *testkit.SyncBuffer) {
	t.Helper()
	ghToken := "ghs_" + strings.Repeat("R", 36)
	env.Sim.AddToken(ghToken, testenv.Bot)
	vars := map[string]string{
		"COGWORKS_GITHUB_TOKEN":   ghToken,
		"COGWORKS_GITHUB_API_URL": env.URL + "/api/v3/",
		"COGWORKS_LOG_FORMAT":     "json",
	}
	for k, v := range extra {
		vars[k] = v
	}
	var errOut testkit.SyncBuffer
	f := factory.NewFactory(factory.IOStreams{Out: &bytes.Buffer{}, ErrOut: &errOut})
	f.Getenv = func(k string) string { return vars[k] }
	f.Environ = func() []string { return nil }
	f.NewProvider = providers.FromConfig // the real providers, whose errors echo the key
	f.Clock = env.Clock.Now
	f.BotLogin = testenv.Bot
	t.Cleanup(factory.Wire(f))
	return f, &errOut
}

// TestRedTeamLLMProviderErrorEchoingTheKey: a provider answers 401 with a
// body quoting the API key (as some do, and as a proxy might); neither
// the issue's comments nor the logs may carry the key.
func TestRedTeamLLMProviderErrorEchoingTheKey(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-api03-redteamKEY0123456789"
	for _, provider := range []string{"anthropic", "openai"} {
		t.Run(provider, func(t *testing.T) {
			t.Parallel()
			llmSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				fmt.Fprintf(w, `{"error":{"type":"authentication_error","message":"invalid x-api-key %s (b64 %s)"}}`,
					apiKey, base64.StdEncoding.EncodeToString([]byte(apiKey)))
			}))
			t.Cleanup(llmSrv.Close)
			env := testenv.New(t)
			n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Add a widget", "Please add a widget.")
			env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
			f, errOut := secretEnvFactory(t, env, map[string]string{
				"COGWORKS_LLM_PROVIDER": provider, "COGWORKS_LLM_BASE_URL": llmSrv.URL,
				"COGWORKS_LLM_API_KEY": apiKey, // the provider's default model, which the price table knows
			})
			err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", fmt.Sprint(n), "--workspace", t.TempDir(), "--max-steps", "3")
			comments := env.Sim.Comments(testenv.Repo.String(), n)
			var all strings.Builder
			for _, c := range comments {
				all.WriteString(c.Body)
			}
			t.Logf("err: %v\ncomments: %s\nlog: %s", err, all.String(), errOut.String())
			require.NotEmpty(t, comments, "the step reported on the issue")
			assert.Contains(t, all.String(), "authentication_error", "the provider's answer is reported")
			assertNoLeak(t, all.String(), apiKey, "a comment")
			assertNoLeak(t, errOut.String(), apiKey, "the log")
			if err != nil {
				assertNoLeak(t, err.Error(), apiKey, "the command's error")
			}
		})
	}
}

// TestRedTeamLogLineCarryingTheToken: whatever a log call carries, the
// CLI's logger writes no secret of the environment.
func TestRedTeamLogLineCarryingTheToken(t *testing.T) {
	t.Parallel()
	token := "ghp_" + strings.Repeat("L", 36)
	npm := "npm-token-redteam-42"
	for _, format := range []string{"text", "json"} {
		var errOut bytes.Buffer
		vars := map[string]string{"COGWORKS_GITHUB_TOKEN": token, "COGWORKS_LOG_FORMAT": format}
		f := &factory.Factory{IO: factory.IOStreams{ErrOut: &errOut}, Getenv: func(k string) string { return vars[k] },
			Environ: func() []string { return []string{"NPM_TOKEN=" + npm} }}
		log := f.Logger()
		log.Error("push failed: "+token, "err", errors.New("remote: "+hex.EncodeToString([]byte(token))),
			"url", "https://x:"+url.QueryEscape(npm)+"@example.com", "out", base64.StdEncoding.EncodeToString([]byte(npm)))
		log.With("auth", "Bearer "+token).Info("request")
		assertNoLeak(t, errOut.String(), token, format+" log")
		assertNoLeak(t, errOut.String(), npm, format+" log")
		assert.Contains(t, errOut.String(), "[REDACTED]")
		assert.Contains(t, errOut.String(), "push failed")
	}
}

// TestRedTeamSecretInFailingTestOutput: a generated test prints the GitHub
// token base64-, hex- and URL-encoded and fails; code generation gives up
// and the engine posts the failure report. No comment on the issue may
// carry the token in any form, and the report quotes the output's head,
// not all of it.
func TestRedTeamSecretInFailingTestOutput(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	n := env.Sim.SeedIssue(testenv.Repo.String(), "alice", "Add a widget", "Please add a widget.")
	env.Sim.LabelIssue(testenv.Repo.String(), n, "alice", pipeline.LabelRun)
	summary := filepath.Join(t.TempDir(), "summary.md")
	f, errOut := secretEnvFactory(t, env, map[string]string{"GITHUB_STEP_SUMMARY": summary})
	token := f.Env("COGWORKS_GITHUB_TOKEN")
	forms := leakForms(token)
	var out strings.Builder
	out.WriteString("TestLeak failed:\n=== RUN   TestLeak\n")
	fmt.Fprintf(&out, "    leak_test.go:12: env dump: b64=%s hex=%s\n", forms["base64"], forms["hex"])
	fmt.Fprintf(&out, "    leak_test.go:13: calling https://api.example.com/x?token=%s\n", forms["url"])
	for i := range 500 {
		fmt.Fprintf(&out, "    leak_test.go:%d: noise %d\n", 20+i, i)
	}
	fmt.Fprintf(&out, "    leak_test.go:999: at the end: %s\n--- FAIL: TestLeak (0.00s)\n", forms["plain"])
	f.Executors = func(context.Context, factory.Client, github.Repo, string, config.Config) (map[pipeline.Stage]engine.StageExecutor, engine.RegistryValidator, error) {
		return map[pipeline.Stage]engine.StageExecutor{pipeline.StageIntake: engine.StageExecutorFunc(func(context.Context, engine.StageInput) (engine.StageResult, error) {
			return engine.StageResult{}, &escalation.Error{Reason: "sub-work-item swi-1 failed after 1 attempts; last output " + forms["hex"],
				Attempts: []escalation.Attempt{{N: 1, Summary: "tests failed (exit code 1)", Diagnostics: []string{"[blocking test_failure] leak_test.go:12: " + out.String()}}}}
		})}, nil, nil
	}
	err := cmdtest.Execute(t, f, "process", "--repo", testenv.Repo.String(), "--issue", fmt.Sprint(n), "--workspace", t.TempDir())
	require.Error(t, err, "the escalation halts the pipeline")
	var all strings.Builder
	for _, c := range env.Sim.Comments(testenv.Repo.String(), n) {
		all.WriteString(c.Body)
	}
	require.Contains(t, all.String(), "TestLeak failed", "the failure report was posted")
	assert.Contains(t, all.String(), "more lines not shown", "the output is summarised")
	assert.NotContains(t, all.String(), "noise 499", "the output is not quoted whole")
	assertNoLeak(t, all.String(), token, "a comment")
	assertNoLeak(t, errOut.String(), token, "the log")
	sum, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(sum), "sub-work-item swi-1 failed", "the step summary was written")
	assertNoLeak(t, string(sum), token, "the Actions step summary")
}

// TestRedTeamDoctorPrintsNoKeyAProviderEchoes: doctor asks the provider
// directly (no gateway) and prints its error; a 401 quoting the key must
// not put the key in the output.
func TestRedTeamDoctorPrintsNoKeyAProviderEchoes(t *testing.T) {
	t.Parallel()
	const apiKey = "sk-ant-api03-doctorKEY0123456789"
	llmSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"type":"authentication_error","message":"invalid x-api-key %s"}}`, hex.EncodeToString([]byte(apiKey)))
	}))
	t.Cleanup(llmSrv.Close)
	env := testenv.New(t)
	f, _ := secretEnvFactory(t, env, map[string]string{
		"COGWORKS_LLM_PROVIDER": "anthropic", "COGWORKS_LLM_BASE_URL": llmSrv.URL,
		"COGWORKS_LLM_API_KEY": apiKey, // the provider's default model, which the price table knows
	})
	var out bytes.Buffer
	f.IO.Out = &out
	err := cmdtest.Execute(t, f, "doctor", "--repo", testenv.Repo.String(), "--workspace", t.TempDir())
	require.Error(t, err, "the LLM check fails")
	assert.Contains(t, out.String(), "authentication_error")
	assertNoLeak(t, out.String(), apiKey, "doctor's output")
	assert.NotContains(t, out.String(), hex.EncodeToString([]byte(apiKey)))
}
