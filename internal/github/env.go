package github

import (
	"encoding/pem"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Environment variables read by OptionsFromEnv.
const (
	EnvToken          = "COGWORKS_GITHUB_TOKEN"
	EnvActionsToken   = "GITHUB_TOKEN"
	EnvAppID          = "COGWORKS_GITHUB_APP_ID"
	EnvAppPrivateKey  = "COGWORKS_GITHUB_APP_PRIVATE_KEY"
	EnvInstallationID = "COGWORKS_GITHUB_INSTALLATION_ID"
	EnvAPIURL         = "COGWORKS_GITHUB_API_URL"
)

// OptionsFromEnv reads credentials and the API URL from the environment.
// App auth (COGWORKS_GITHUB_APP_ID set) takes precedence over tokens;
// otherwise COGWORKS_GITHUB_TOKEN is used, falling back to GITHUB_TOKEN.
// COGWORKS_GITHUB_APP_PRIVATE_KEY holds PEM text or the path of a PEM
// file. Errors name the variable and never contain token or key text.
func OptionsFromEnv(getenv func(string) string) (Options, error) {
	var opts Options
	base, err := apiURLFromEnv(getenv)
	if err != nil {
		return Options{}, err
	}
	opts.BaseURL = base

	if appID := strings.TrimSpace(getenv(EnvAppID)); appID != "" {
		app, err := appFromEnv(appID, getenv)
		if err != nil {
			return Options{}, err
		}
		opts.App = app
		return opts, nil
	}
	if getenv(EnvInstallationID) != "" || getenv(EnvAppPrivateKey) != "" {
		return Options{}, fmt.Errorf("%s is required when %s or %s is set", EnvAppID, EnvInstallationID, EnvAppPrivateKey)
	}

	opts.Token = strings.TrimSpace(getenv(EnvToken))
	if opts.Token == "" {
		opts.Token = strings.TrimSpace(getenv(EnvActionsToken))
	}
	if opts.Token == "" {
		return Options{}, fmt.Errorf("no GitHub credentials: set %s (or %s), or App auth with %s, %s and %s",
			EnvToken, EnvActionsToken, EnvAppID, EnvAppPrivateKey, EnvInstallationID)
	}
	return opts, nil
}

// apiURLFromEnv reads COGWORKS_GITHUB_API_URL ("" when unset).
func apiURLFromEnv(getenv func(string) string) (string, error) {
	raw := strings.TrimSpace(getenv(EnvAPIURL))
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: want an absolute http(s) URL such as https://github.example.com/api/v3/", EnvAPIURL)
	}
	return raw, nil
}

func appFromEnv(appID string, getenv func(string) string) (*AppAuth, error) {
	id, err := strconv.ParseInt(appID, 10, 64)
	if err != nil || id <= 0 {
		return nil, fmt.Errorf("%s: want a positive integer, got %q", EnvAppID, appID)
	}
	instRaw := strings.TrimSpace(getenv(EnvInstallationID))
	if instRaw == "" {
		return nil, fmt.Errorf("%s is required with %s", EnvInstallationID, EnvAppID)
	}
	inst, err := strconv.ParseInt(instRaw, 10, 64)
	if err != nil || inst <= 0 {
		return nil, fmt.Errorf("%s: want a positive integer, got %q", EnvInstallationID, instRaw)
	}
	key, err := privateKeyFromEnv(getenv(EnvAppPrivateKey))
	if err != nil {
		return nil, err
	}
	return &AppAuth{AppID: id, PrivateKey: key, InstallationID: inst}, nil
}

// maxKeyPath is the longest value treated as a key file path; longer
// values are assumed to be (mangled) key text and never echoed.
const maxKeyPath = 512

// privateKeyFromEnv accepts PEM text (also with literal "\n" escapes, as
// CI secret stores often flatten it) or a file path.
func privateKeyFromEnv(raw string) ([]byte, error) {
	v := strings.TrimSpace(raw)
	if v == "" {
		return nil, fmt.Errorf("%s is required with %s", EnvAppPrivateKey, EnvAppID)
	}
	var key []byte
	switch {
	case strings.Contains(v, "-----BEGIN"):
		key = []byte(strings.TrimSpace(strings.ReplaceAll(v, `\n`, "\n")) + "\n")
	case strings.ContainsAny(v, "\n\r") || len(v) > maxKeyPath:
		// Neither PEM nor a plausible path: do not echo it, it may be key text.
		return nil, fmt.Errorf("%s: neither PEM text nor a file path", EnvAppPrivateKey)
	default:
		data, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("%s: read key file: %w", EnvAppPrivateKey, err)
		}
		key = data
	}
	block, _ := pem.Decode(key)
	if block == nil || !strings.Contains(block.Type, "PRIVATE KEY") {
		return nil, fmt.Errorf("%s: not a PEM-encoded private key", EnvAppPrivateKey)
	}
	return key, nil
}
