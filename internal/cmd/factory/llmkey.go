package factory

import (
	"fmt"
	"strings"

	"github.com/cogworks/cogworks/internal/llm"
)

// MissingLLMKey explains a missing LLM API key where a user sets it: the
// environment variable, and in GitHub Actions the repository secret the
// shipped workflows pass to the Action.
func MissingLLMKey(provider string) error {
	name := strings.ToLower(strings.TrimSpace(provider))
	if name == "" {
		name = llm.ProviderAnthropic
	}
	secret := llm.KeySecret(name)
	return fmt.Errorf("llm provider %q: no API key: set COGWORKS_LLM_API_KEY; in GitHub Actions, add the repository secret %s "+
		"(Settings → Secrets and variables → Actions) and pass it to the Action as llm-api-key: ${{ secrets.%s }}", name, secret, secret)
}

// LLMKeyMissing reports whether the configured provider needs a key it
// does not have.
func LLMKeyMissing(lc llm.Config) bool {
	return llm.NeedsAPIKey(lc.Provider, lc.BaseURL) && lc.APIKey == ""
}
