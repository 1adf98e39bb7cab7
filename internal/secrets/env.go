package secrets

import (
	"encoding/base64"
	"encoding/pem"
	"strings"
)

// Environment variables whose values are always secrets.
const (
	EnvGitHubToken           = "COGWORKS_GITHUB_TOKEN"
	EnvActionsToken          = "GITHUB_TOKEN"
	EnvLLMAPIKey             = "COGWORKS_LLM_API_KEY"
	EnvWebhookSecret         = "COGWORKS_WEBHOOK_SECRET"
	EnvWebhookSecretPrevious = "COGWORKS_WEBHOOK_SECRET_PREVIOUS"
	EnvAppPrivateKey         = "COGWORKS_GITHUB_APP_PRIVATE_KEY"
	EnvStateKey              = "COGWORKS_STATE_KEY"
)

// EnvValues returns the secret values of an environment: the variables
// named above (the App private key expanded by PEMValues when it holds
// PEM text rather than a path; callers that read a key file pass its
// text to PEMValues themselves) and, from environ ("NAME=value" entries,
// as os.Environ returns them), every value of a variable whose name ends
// in _TOKEN, _KEY or _SECRET or contains PASSWORD. Values shorter than
// MinLen are left out here as New would ignore them anyway.
func EnvValues(getenv func(string) string, environ []string) []string {
	var out []string
	add := func(v string) {
		if v = strings.TrimSpace(v); len(v) >= MinLen {
			out = append(out, v)
		}
	}
	if getenv != nil {
		for _, k := range []string{EnvGitHubToken, EnvActionsToken, EnvLLMAPIKey, EnvWebhookSecret, EnvWebhookSecretPrevious, EnvStateKey} {
			add(getenv(k))
		}
		if key := getenv(EnvAppPrivateKey); strings.Contains(key, "-----BEGIN") {
			out = append(out, PEMValues(key)...)
		}
	}
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if !ok || !secretName(name) {
			continue
		}
		if strings.Contains(v, "-----BEGIN") {
			out = append(out, PEMValues(v)...)
			continue
		}
		add(v)
	}
	return out
}

// secretName reports whether an environment variable's name says it holds
// a secret.
func secretName(name string) bool {
	u := strings.ToUpper(name)
	return strings.HasSuffix(u, "_TOKEN") || strings.HasSuffix(u, "_KEY") ||
		strings.HasSuffix(u, "_SECRET") || strings.Contains(u, "PASSWORD")
}

// PEMValues returns what identifies a PEM private key in text: the PEM
// text itself (also as CI secret stores flatten it, with literal "\n"),
// each base64 line of its body, the base64 of the DER bytes (the body on
// one line) and the DER bytes, whose base64 forms at every alignment New
// then adds. Text that does not decode as PEM is returned as one value.
func PEMValues(text string) []string {
	text = strings.TrimSpace(strings.ReplaceAll(text, `\n`, "\n"))
	out := []string{text, strings.ReplaceAll(text, "\n", `\n`)}
	block, _ := pem.Decode([]byte(text))
	if block == nil {
		return out
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "-----") && !strings.Contains(line, ":") {
			out = append(out, line)
		}
	}
	return append(out, base64.StdEncoding.EncodeToString(block.Bytes), string(block.Bytes))
}
