package factory_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogworks/cogworks/internal/cmd/cmdtest"
	"github.com/cogworks/cogworks/internal/cmd/factory"
	"github.com/cogworks/cogworks/internal/config"
	"github.com/cogworks/cogworks/internal/llm"
	"github.com/cogworks/cogworks/internal/testkit"
)

// testPEM returns a fresh PKCS#1 RSA key in PEM. 1024 bits keeps the
// test fast; the size does not matter to redaction.
func testPEM(t *testing.T) string {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	return string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}))
}

func TestFactoryRedactorCoversEverySecretOfTheEnvironment(t *testing.T) {
	t.Parallel()
	keyPEM := testPEM(t)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(keyFile, []byte(keyPEM), 0o600))
	vars := map[string]string{
		"COGWORKS_GITHUB_TOKEN":            "pat-value-0123456789",
		"GITHUB_TOKEN":                     "actions-token-value",
		"COGWORKS_LLM_API_KEY":             "llm-api-key-value",
		"COGWORKS_WEBHOOK_SECRET":          "webhook-secret-now",
		"COGWORKS_WEBHOOK_SECRET_PREVIOUS": "webhook-secret-old",
		"COGWORKS_STATE_KEY":               "state-key-value-1",
		"COGWORKS_GITHUB_APP_PRIVATE_KEY":  keyFile,
	}
	f := &factory.Factory{IO: factory.IOStreams{ErrOut: io.Discard}, Getenv: func(k string) string { return vars[k] },
		Environ: func() []string { return []string{"DEPLOY_PASSWORD=hunter2-but-long", "CUSTOM_SECRET=custom-secret-v"} }}
	r := f.Redactor()
	require.Same(t, r, f.Redactor(), "built once")
	secretValues := []string{"DEPLOY_PASSWORD=hunter2-but-long", "custom-secret-v"}
	for k, v := range vars {
		if k != "COGWORKS_GITHUB_APP_PRIVATE_KEY" {
			secretValues = append(secretValues, v)
		}
	}
	for _, v := range secretValues {
		_, v, _ = strings.Cut(v, "=")
		if v == "" {
			continue
		}
		for _, form := range []string{v, hex.EncodeToString([]byte(v)), base64.URLEncoding.EncodeToString([]byte(v))} {
			assert.NotContains(t, r.Redact("x "+form+" y"), form)
		}
	}
	lines := strings.Split(strings.TrimSpace(keyPEM), "\n")
	for _, leak := range []string{keyPEM, lines[2], strings.Join(lines[1:len(lines)-1], "")} {
		assert.NotContains(t, r.Redact("key: "+leak), lines[2][:40], "the App key read from its file")
	}

	// The LLM gateway redacts prompts with the same Redactor.
	g := f.NewGateway(llm.NewScripted(), t.TempDir(), config.Default(), "m")
	assert.Equal(t, "token [REDACTED]", g.Redact("token "+base64.StdEncoding.EncodeToString([]byte("llm-api-key-value"))))
}

// What the built-in domain service prints (here its own usage error,
// quoting an argument) reaches standard error redacted.
func TestBuiltinDomainOutputIsRedacted(t *testing.T) {
	t.Parallel()
	const key = "llm-key-in-child-output"
	logs := &testkit.SyncBuffer{}
	f := &factory.Factory{IO: factory.IOStreams{ErrOut: logs}, Getenv: func(k string) string {
		if k == "COGWORKS_LLM_API_KEY" {
			return key
		}
		return ""
	}}
	b := factory.NewBuiltinDomain(f)
	b.Env = append(os.Environ(), cmdtest.ReexecEnv+"=1")
	b.PassEnv = []string{cmdtest.ReexecEnv}
	t.Cleanup(b.Stop)
	leak := hex.EncodeToString([]byte(key))
	b.Args = []string{"domain-go", "serve", "--no-such-flag-" + leak}
	_, err := b.Start(context.Background())
	require.Error(t, err)
	b.Stop()
	assert.Contains(t, logs.String(), "no-such-flag-[REDACTED]", "the child's message is kept, the secret is not")
	assert.NotContains(t, logs.String(), leak)
}
