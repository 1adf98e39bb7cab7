package github

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOptionsFromEnv(t *testing.T) {
	t.Parallel()
	key := testKeyPEM(t)
	keyFile := filepath.Join(t.TempDir(), "app.pem")
	require.NoError(t, os.WriteFile(keyFile, key, 0o600))
	flattened := strings.ReplaceAll(string(key), "\n", `\n`)

	tests := []struct {
		name string
		env  map[string]string
		want Options
	}{
		{"cogworks token", map[string]string{EnvToken: "ghp_a", EnvActionsToken: "ghs_b"}, Options{Token: "ghp_a"}},
		{"falls back to GITHUB_TOKEN", map[string]string{EnvActionsToken: " ghs_b\n"}, Options{Token: "ghs_b"}},
		{"enterprise URL", map[string]string{EnvToken: "t", EnvAPIURL: "http://127.0.0.1:8080/api/v3/"},
			Options{Token: "t", BaseURL: "http://127.0.0.1:8080/api/v3/"}},
		{"app with PEM text wins over GITHUB_TOKEN", map[string]string{EnvAppID: "12", EnvInstallationID: "99",
			EnvAppPrivateKey: string(key), EnvActionsToken: "ghs_b"},
			Options{App: &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: key}}},
		{"app with key file path", map[string]string{EnvAppID: "12", EnvInstallationID: "99", EnvAppPrivateKey: keyFile},
			Options{App: &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: key}}},
		{"app with flattened PEM", map[string]string{EnvAppID: "12", EnvInstallationID: "99", EnvAppPrivateKey: flattened},
			Options{App: &AppAuth{AppID: 12, InstallationID: 99, PrivateKey: key}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OptionsFromEnv(envOf(tt.env))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			require.NoError(t, got.Validate())
		})
	}
}

func TestOptionsFromEnvErrors(t *testing.T) {
	t.Parallel()
	secretKey := "-----BEGIN RSA PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcw==\n-----END RSA PRIVATE KEY-----"
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"no credentials", map[string]string{}, "no GitHub credentials: set COGWORKS_GITHUB_TOKEN"},
		{"bad URL", map[string]string{EnvToken: "t", EnvAPIURL: "127.0.0.1:8080"}, EnvAPIURL + ": want an absolute http(s) URL"},
		{"bad app id", map[string]string{EnvAppID: "twelve"}, EnvAppID + `: want a positive integer, got "twelve"`},
		{"missing installation", map[string]string{EnvAppID: "12"}, EnvInstallationID + " is required"},
		{"bad installation", map[string]string{EnvAppID: "12", EnvInstallationID: "-1"}, EnvInstallationID + ": want a positive integer"},
		{"missing key", map[string]string{EnvAppID: "12", EnvInstallationID: "9"}, EnvAppPrivateKey + " is required"},
		{"missing key file", map[string]string{EnvAppID: "12", EnvInstallationID: "9", EnvAppPrivateKey: "/nonexistent/app.pem"},
			EnvAppPrivateKey + ": read key file: open /nonexistent/app.pem"},
		{"installation without app", map[string]string{EnvInstallationID: "9", EnvToken: "t"}, EnvAppID + " is required"},
		{"garbled PEM", map[string]string{EnvAppID: "12", EnvInstallationID: "9",
			EnvAppPrivateKey: strings.ReplaceAll(secretKey, "-----END", "")}, EnvAppPrivateKey + ": not a PEM-encoded private key"},
		{"multi-line non-PEM", map[string]string{EnvAppID: "12", EnvInstallationID: "9", EnvAppPrivateKey: "secret-key-bytes\nmore"},
			EnvAppPrivateKey + ": neither PEM text nor a file path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OptionsFromEnv(envOf(tt.env))
			require.ErrorContains(t, err, tt.want)
			assert.NotContains(t, err.Error(), "secret-key-bytes")
			assert.NotContains(t, err.Error(), "c2VjcmV0")
		})
	}
}
